#!/usr/bin/env bash
# test_report.sh - report.html from `onnx2hls plan --report` is self-contained
# (no scripts, no external resources), loads in headless Chromium without
# console errors, keeps every chart in the DOM, and renders to a screenshot
# (left in BUILD/report_test.png for a look).
#   test_report.sh ONNX2HLS SOURCE_DIR BUILD_DIR
# Chromium comes from Debian's package; if it is missing and cannot be
# installed, the browser part is skipped (the static checks still run).
set -u
bin=$1 src=$2 build=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 pass=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*" >&2; fail=$((fail + 1)); }

model=$src/samples/mobilenet_tiny.onnx
report=$tmp/report.html
if "$bin" plan "$model" --target zcu102 --pe-budget 256 --report "$report" > "$tmp/plan.txt" 2> "$tmp/plan.err"; then ok
else bad "plan --report exited $? ($(cat "$tmp/plan.err"))"; fi
[ -s "$report" ] && ok || bad "no report written"

# self-contained: no scripts, nothing fetched (the SVG namespace is a name, not a fetch)
grep -qi '<script' "$report" && bad "report has a script" || ok
grep -Eqi '(src|href)=' "$report" && bad "report references external resources" || ok
grep -Eo 'https?://[^" ]+' "$report" | grep -v '^http://www.w3.org/2000/svg$' | grep -q . \
  && bad "report has URLs" || ok
nsvg=$(grep -o '<svg' "$report" | wc -l)
[ "$nsvg" -ge 4 ] && ok || bad "expected at least 4 charts, found $nsvg"
for section in 'The three designs' 'layers &rarr; engines' 'Stage and layer times' 'Resources against' \
               'Roofline' 'Memory analysis' '<h2>Layers'; do
  grep -q "$section" "$report" && ok || bad "section '$section' missing"
done

find_chromium() { command -v chromium || command -v chromium-browser || true; }
chrome=$(find_chromium)
if [ -z "$chrome" ] && [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
  echo "test_report: installing chromium" >&2
  timeout 900 env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium > "$tmp/apt.log" 2>&1 || true
  chrome=$(find_chromium)
fi
if [ -z "$chrome" ]; then
  echo "test_report: chromium not available, browser checks skipped"
  echo "$pass passed, $fail failed"
  [ "$fail" = 0 ]
  exit
fi

flags=(--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update
       --disable-sync --no-first-run --user-data-dir="$tmp/profile" --hide-scrollbars)
timeout 120 "$chrome" "${flags[@]}" --enable-logging=stderr --v=0 --dump-dom "file://$report" \
  > "$tmp/dom.html" 2> "$tmp/chrome.log"
grep -q '</html>' "$tmp/dom.html" && ok || bad "chromium did not render the page ($(tail -3 "$tmp/chrome.log"))"
if grep -Ei 'CONSOLE|Uncaught|Failed to load resource|error on line' "$tmp/chrome.log"; then
  bad "console errors while loading the report"
else ok; fi
ndom=$(grep -o '<svg' "$tmp/dom.html" | wc -l)
[ "$ndom" = "$nsvg" ] && ok || bad "DOM has $ndom charts, source $nsvg"
shot=$build/report_test.png
rm -f "$shot"
timeout 120 "$chrome" "${flags[@]}" --window-size=1000,2200 --screenshot="$shot" "file://$report" \
  > /dev/null 2>> "$tmp/chrome.log"
size=$(stat -c %s "$shot" 2> /dev/null || echo 0)
[ "$size" -gt 20000 ] && ok || bad "screenshot missing or blank ($size bytes)"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
