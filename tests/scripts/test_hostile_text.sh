#!/usr/bin/env bash
# test_hostile_text.sh - names in a model are attacker bytes; every output
# they reach must stay what it is. One model whose every name and doc string
# carries a C trigraph string break (`??/"` + a declaration), comment ends
# and starts, markup, Tcl substitutions, a terminal escape sequence, a byte
# that is not UTF-8 and a right-to-left override:
#  - the generated host C builds in ISO C11 (trigraphs on) with -Wall -Wextra
#    -Werror, declares nothing of the name's, and gives the name back intact;
#  - inspect, plan, compile and the generated program print no control
#    character and no invalid UTF-8, in messages and in reports;
#  - inspect --json, plan.json, model.json parse; report.html has no markup
#    from the model;
#  - an int8 compile's OUT/hls (C, Tcl, cfg, README) is plain text, the C
#    comments holding names cannot be closed, and verify --hls passes;
#  - a precision spec names a layer whatever its bytes (a quoted name).
# usage: test_hostile_text.sh ONNX2HLS SOURCE_DIR BUILD_DIR
set -u
o2h=$1 src=$2 bin=$3 tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
command -v python3 > /dev/null || { echo "SKIP: python3 missing"; exit 77; }

text='?\x3f/", 1, 4}}; int evil = 42; /* */ <script>x</script> [exec id] $env(HOME) \x1b[31m \xff \xe2\x80\xae end '
"$bin/tests/mkmodel" names "$text" "$tmp/evil.onnx" && ok || bad "mkmodel names"
"$bin/tests/mkmodel" names "$text" "$tmp/bad.onnx" Foo && ok || bad "mkmodel names with an unknown op"

# clean FILE...: valid UTF-8 with no control characters but newline and tab
clean() {
  python3 - "$@" <<'PY'
import sys, unicodedata
for p in sys.argv[1:]:
    t = open(p, "rb").read().decode("utf-8")          # raises on invalid UTF-8
    for ch in t:
        if ch in "\n\t":
            continue
        if unicodedata.category(ch) in ("Cc", "Cf"):
            sys.exit("%s: raw U+%04X" % (p, ord(ch)))
PY
}

"$o2h" inspect "$tmp/evil.onnx" > "$tmp/inspect.txt" 2>&1 && clean "$tmp/inspect.txt" && ok ||
  bad "inspect text: no raw control bytes"
"$o2h" inspect "$tmp/evil.onnx" --json > "$tmp/inspect.json" 2> "$tmp/inspect.err" &&
  python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/inspect.json" && clean "$tmp/inspect.err" && ok ||
  bad "inspect --json parses"
"$o2h" inspect "$tmp/bad.onnx" > "$tmp/bad.out" 2>&1
[ $? = 2 ] && grep -q "unsupported operator 'Foo'" "$tmp/bad.out" && grep -q 'x1b\[31m' "$tmp/bad.out" &&
  clean "$tmp/bad.out" && ok || bad "a diagnostic naming the node shows its name escaped"
"$o2h" plan "$tmp/evil.onnx" > "$tmp/plan.txt" 2>&1 && clean "$tmp/plan.txt" && ok || bad "plan text"
"$o2h" plan "$tmp/evil.onnx" --json > "$tmp/plan.json" 2>&1 &&
  python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/plan.json" && ok || bad "plan --json parses"

"$o2h" compile "$tmp/evil.onnx" -o "$tmp/out" > "$tmp/compile.txt" 2>&1 && clean "$tmp/compile.txt" && ok ||
  bad "compile"
for j in plan.json host/model.json; do
  python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/out/$j" && ok || bad "$j parses"
done
! grep -q "<script>" "$tmp/out/report.html" && grep -q "&lt;script&gt;" "$tmp/out/report.html" && ok ||
  bad "report.html: the model's markup is text"
clean "$tmp/out/report.html" && ok || bad "report.html: no raw control characters"
clean "$tmp/out/host/model.c" "$tmp/out/host/model.h" && ok || bad "generated C is plain text"

clean "$tmp/out/plan.json" "$tmp/out/host/model.json" && ok || bad "JSON: bidirectional controls as \\u escapes"

# the integer program brings the accelerator: every text file of OUT/hls
"$o2h" compile "$tmp/evil.onnx" -o "$tmp/int8" --precision int8 > "$tmp/int8.txt" 2>&1 && clean "$tmp/int8.txt" && ok ||
  bad "compile --precision int8"
if [ -d "$tmp/int8/hls" ]; then
  # shellcheck disable=SC2046
  clean $(find "$tmp/int8/hls" -type f ! -name '*.f32' ! -name '*.bin') && ok || bad "OUT/hls is plain text"
  grep -rq "int evil = 42; / \* \* /" "$tmp/int8/hls/engines" && ok || bad "ROM comments hold the layer name, closed never"
else
  bad "an int8 compile writes OUT/hls"
fi

# a spec names a layer whatever bytes its name holds: quoted, C escapes
printf '%b' "${text}conv" | python3 -c '
import sys
b = sys.stdin.buffer.read()
q = "".join("\\" + chr(c) if c in b"\"\\?" else chr(c) if 32 <= c < 127 else "\\%03o" % c for c in b)
print("\"%s\" int16" % q)' > "$tmp/prec.spec"
"$o2h" compile "$tmp/evil.onnx" -o "$tmp/spec" --emit host --precision int8 --precision-spec "$tmp/prec.spec" > "$tmp/spec.txt" 2>&1 &&
  ! grep -q "no layer named" "$tmp/spec.txt" && ok || { bad "a quoted spec name reaches its layer"; head -5 "$tmp/spec.txt"; }
echo '"conv" int16' > "$tmp/other.spec"
"$o2h" compile "$tmp/evil.onnx" -o "$tmp/spec" --emit host --precision int8 --precision-spec "$tmp/other.spec" 2>&1 |
  grep -q "no layer named 'conv'" && ok || bad "... and only it"

# ISO C: trigraphs are replaced, so `??/"` would end a string early
if command -v cc > /dev/null; then
  make -s -C "$tmp/out/host" CFLAGS='-std=c11 -O1 -Wall -Wextra -Werror' > "$tmp/make.txt" 2>&1 && ok ||
    { bad "host program builds in ISO C11 with -Werror"; head -20 "$tmp/make.txt"; }
  if [ -d "$tmp/int8/hls" ] && command -v g++ > /dev/null; then
    "$o2h" verify "$tmp/int8" --hls > "$tmp/vhls.txt" 2>&1 && clean "$tmp/vhls.txt" && ok ||
      { bad "verify --hls on the names' accelerator"; tail -5 "$tmp/vhls.txt"; }
  fi
  if [ -x "$tmp/out/host/model" ]; then
    ! nm "$tmp/out/host/model" | grep -qw evil && ok || bad "no symbol from the model's names"
    head -c 512 /dev/zero > "$tmp/in.bin"
    "$tmp/out/host/model" "$tmp/in.bin" > "$tmp/run.txt" 2>&1 && clean "$tmp/run.txt" && ok ||
      bad "generated program prints names escaped"
    want=$(printf '%s' '??/", 1, 4}}; int evil = 42; /* */ <script>x</script> [exec id] $env(HOME) \x1b[31m \xff \xe2\x80\xae end out:')
    grep -qF "$want" "$tmp/run.txt" && ok || bad "the name comes back byte for byte (shown escaped)"
    "$tmp/out/host/model" "$tmp/out/host/main.c" > "$tmp/run2.txt" 2>&1
    [ $? = 2 ] && grep -q "needs exactly 512 bytes" "$tmp/run2.txt" && clean "$tmp/run2.txt" && ok ||
      bad "input size error names the input escaped"
  fi
fi

echo "test_hostile_text: $pass passed, $fail failed"
[ "$fail" = 0 ]
