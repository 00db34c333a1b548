#!/usr/bin/env bash
# test_hostile_files.sh - files named on the command line and folders a
# compile leaves are input too:
#  - side files (--device-file, --precision-spec, --prune, --calib,
#    --prune-calib, --tb-input, verify --reference/--input, verify --hls
#    --input, the lint's C files and hls_config.cfg): /dev/zero, a FIFO, a file
#    over its kind's cap, NUL bytes in a text kind -> exit 2 and a message
#    naming the file, never a hang (every command runs under a timeout);
#  - verify's model.json tampered (huge, negative, fractional dims, rank 9)
#    -> exit 2 naming the file; a 10,000-byte name is verified like any;
#  - a failed compile removes the folders it created; -o "" is named;
#  - a model whose arena a static program cannot hold is refused (exit 2,
#    the figure and the limit), and --heap-arena builds it;
#  - the generated program: exit 2 for an unwritable -o, a bad --time, a
#    weight blob with its flags or reserved field set.
# usage: test_hostile_files.sh ONNX2HLS SOURCE_DIR BUILD_DIR
set -u
o2h=$1 src=$2 bin=$3 tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
s=$src/samples m=$s/mobilenet_tiny.onnx
T() { timeout "${T_LIMIT:-60}" "$@"; }   # a hang guard; T_LIMIT=600 where a program is built

# expect CODE PATTERN CMD...: exit code and a line of stderr+stdout
expect() {
  local code=$1 pat=$2
  shift 2
  T "$@" > "$tmp/out" 2>&1
  local rc=$?
  if [ "$rc" = "$code" ] && grep -q -- "$pat" "$tmp/out"; then ok; else
    bad "exit $rc (want $code), '$pat' in: $*"
    head -3 "$tmp/out"
  fi
}

mkfifo "$tmp/fifo"
head -c 2097152 /dev/zero | tr '\0' ' ' > "$tmp/big.json"
printf 'conv_1 0.5\n\0\n' > "$tmp/nul.spec"
head -c 4096 /dev/zero > "$tmp/zeros"

# ------------------------------------------------------------ side files
expect 2 "/dev/zero: error: the device file is not a regular file" "$o2h" plan "$m" --device-file /dev/zero
expect 2 "the device file is not a regular file" "$o2h" plan "$m" --device-file "$tmp/fifo"
expect 2 "more than the 1 MiB a device file may hold" "$o2h" plan "$m" --device-file "$tmp/big.json"
expect 2 "the precision spec is not a regular file" "$o2h" compile "$m" -o "$tmp/o" --precision int8 --precision-spec /dev/zero
expect 2 "the precision spec holds a NUL byte" "$o2h" compile "$m" -o "$tmp/o" --precision int8 --precision-spec "$tmp/nul.spec"
expect 2 "the prune spec is not a regular file" "$o2h" compile "$m" -o "$tmp/o" --prune /dev/zero
expect 2 "the prune spec holds a NUL byte" "$o2h" compile "$m" -o "$tmp/o" --prune "$tmp/nul.spec"
expect 2 "the prune spec holds a NUL byte" "$o2h" compile "$m" -o "$tmp/o" --prune "$tmp/zeros"
expect 2 "the calibration data is not a regular file" "$o2h" compile "$m" -o "$tmp/o" --precision int8 --calib /dev/zero
expect 2 "the calibration data is not a regular file" "$o2h" compile "$m" -o "$tmp/o" --prune 0.2 --prune-calib "$tmp/fifo"
expect 2 "the testbench input is not a regular file" "$o2h" compile "$m" -o "$tmp/o" --precision int8 --tb-input /dev/zero
expect 2 "the testbench input is not a regular file" "$o2h" compile "$m" -o "$tmp/o" --precision int8 --tb-input "$tmp/fifo"
expect 2 "the testbench input is 4096 bytes; one image is 3072 float32" "$o2h" compile "$m" -o "$tmp/o" --precision int8 --emit hls --tb-input "$tmp/zeros"
[ ! -e "$tmp/o" ] && ok || bad "refused side files leave no OUT"
# the lint's files: the C file and a folder's hls_config.cfg
printf 'void f(int *a) { a[0] = 1; }\n' > "$tmp/ok.c"
if "$o2h" lint "$tmp/ok.c" > /dev/null 2>&1; then
  printf 'void f(void) {}\n\0\n' > "$tmp/nul.c"
  expect 2 "the C source file is not a regular file" "$o2h" lint "$tmp/fifo"
  expect 2 "the C source file is not a regular file" "$o2h" lint /dev/zero
  expect 2 "nul.c: error: the C source file holds a NUL byte" "$o2h" lint "$tmp/nul.c"
  mkdir "$tmp/ld" && cp "$tmp/ok.c" "$tmp/ld/" && printf 'syn.file=ok.c\n\0' > "$tmp/ld/hls_config.cfg"
  expect 2 "the hls_config.cfg holds a NUL byte" "$o2h" lint "$tmp/ld"
  rm "$tmp/ld/hls_config.cfg" && mkfifo "$tmp/ld/hls_config.cfg"
  expect 2 "the hls_config.cfg is not a regular file" "$o2h" lint "$tmp/ld"
else
  echo "note: the lint does not run here (no libclang); its file checks skipped"
fi
expect 2 "the model file\|not a regular file" "$o2h" inspect "$tmp/fifo"

# ------------------------------------------------------------------ verify
"$o2h" compile "$m" -o "$tmp/v" -q && ok || bad "compile for verify"
expect 2 "the tensor data is not a regular file" "$o2h" verify "$tmp/v" --input "$s/mobilenet_tiny.in.f32" --reference /dev/zero
expect 2 "4096 bytes, but output .gemm_88_out. (float32, 10 values) needs 40" "$o2h" verify "$tmp/v" --input "$s/mobilenet_tiny.in.f32" --reference "$tmp/zeros"
expect 2 "the tensor data is not a regular file" "$o2h" verify "$tmp/v" --input "$tmp/fifo" --reference "$s/mobilenet_tiny.ref.f32"
"$o2h" compile "$m" -o "$tmp/vh" -q --precision int8 --calib "$s/mobilenet_tiny.in.f32" --emit host,hls && ok || bad "compile int8 with hls for verify --hls"
expect 2 "the tensor data is not a regular file" "$o2h" verify "$tmp/vh" --hls --input "$tmp/fifo"
expect 2 "the tensor data is not a regular file" "$o2h" verify "$tmp/vh" --hls --input /dev/zero
expect 2 "zeros: error: 4096 bytes is not a whole number of images of 12288 bytes" "$o2h" verify "$tmp/vh" --hls --input "$tmp/zeros"
cp "$tmp/v/host/model.json" "$tmp/model.json"
tamper() { # python expression over j, then the expected message
  python3 - "$tmp/model.json" "$tmp/v/host/model.json" "$1" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(j, open(sys.argv[2], "w"))
PY
  expect 2 "$2" "$o2h" verify "$tmp/v" --input "$s/mobilenet_tiny.in.f32" --reference "$s/mobilenet_tiny.ref.f32"
}
tamper 'j["inputs"][0]["shape"] = [1, 3, 2**40, 2**40]' "model.json: error: tensor 'input': dim 2 is not a whole number"
tamper 'j["inputs"][0]["shape"] = [1, 3, 2**20, 2**20]' "more than 4294967296 bytes"
tamper 'j["inputs"][0]["shape"] = [1, -3, 32, 32]' "dim 1 is not a whole number"
tamper 'j["outputs"][0]["shape"] = [1.5, 10]' "dim 0 is not a whole number"
tamper 'j["outputs"][0]["shape"] = [1] * 9' "rank above 8"
tamper 'j["inputs"] = [j["inputs"][0]] * 33' "not an array of at most 32"
tamper 'j["outputs"][0]["dtype"] = "complex"' "unknown dtype"
tamper 'j = [j]' "no \"model\""
printf '{"model": ' > "$tmp/v/host/model.json"
expect 2 "model.json: error: not valid JSON" "$o2h" verify "$tmp/v" --input "$s/mobilenet_tiny.in.f32" --reference "$s/mobilenet_tiny.ref.f32"
cp "$tmp/model.json" "$tmp/v/host/model.json"
# a name far longer than a line buffer: verified like any other (the program
# is built once, with --heap-arena, and run again below)
long=$(head -c 10000 /dev/zero | tr '\0' 'n')
"$bin/tests/mkmodel" names "$long" "$tmp/long.onnx" && "$o2h" compile "$tmp/long.onnx" -o "$tmp/l" -q --heap-arena &&
  ok || bad "compile a model with 10,000-byte names"
head -c 512 /dev/zero > "$tmp/in512"
have_cc=0
if command -v cc > /dev/null; then
  have_cc=1
  T_LIMIT=600 expect 0 "verify: PASS" "$o2h" verify "$tmp/l" --input "$tmp/in512" --reference "$tmp/in512"
fi

# ------------------------------------------------------------ compile -o
expect 2 "unknown target" "$o2h" compile "$m" -o "$tmp/n1/a/b/out" --target nosuchboard
[ ! -e "$tmp/n1" ] && ok || bad "a failed compile removes the folders it made"
mkdir -p "$tmp/n2/keep"
expect 2 "unknown target" "$o2h" compile "$m" -o "$tmp/n2/keep/a/out" --target nosuchboard
[ -d "$tmp/n2/keep" ] && [ ! -e "$tmp/n2/keep/a" ] && ok || bad "... but not the folders that were there"
expect 2 "(it was given an empty string)" "$o2h" compile "$m" -o ""

# ------------------------------------------------------- what a target holds
"$bin/tests/mkmodel" wide 2147483648 "$tmp/wide.onnx"
expect 2 "(8.00 GiB) in static storage" "$o2h" compile "$tmp/wide.onnx" -o "$tmp/w"
grep -q "1073741824 bytes (1.00 GiB)" "$tmp/out" && grep -q -- "--heap-arena" "$tmp/out" && [ ! -e "$tmp/w" ] && ok ||
  bad "the refusal gives the limit, the remedy, and writes nothing"
expect 2 "more than the 2048 MiB calibration may take in one input" "$o2h" compile "$tmp/wide.onnx" -o "$tmp/w" --precision int8
"$o2h" compile "$tmp/wide.onnx" -o "$tmp/wh" -q --heap-arena && grep -q "heap_block(MODEL_ARENA_BYTES)" "$tmp/wh/host/model.c" &&
  ok || bad "--heap-arena compiles it"
grep -q "heap_block(MODEL_ARENA_BYTES)" "$tmp/l/host/model.c" && ok || bad "the arena of a --heap-arena program"
if [ $have_cc = 1 ] && [ -x "$tmp/l/host/model" ]; then
  p=$tmp/l/host/model
  head -c 512 /dev/urandom > "$tmp/in"
  "$p" "$tmp/in" -o "$tmp/o512" && [ "$(stat -c %s "$tmp/o512")" = 512 ] && ok || bad "a --heap-arena program runs"
  # ---------------------------------------------------- generated program
  expect 2 "cannot write /nonexistent" "$p" "$tmp/in" -o /nonexistent/x
  expect 2 "from 0 to 1000000, not '-5'" "$p" --time -5 "$tmp/in"
  expect 2 "not '99999999999999999999'" "$p" --time 99999999999999999999 "$tmp/in"
  for off in 12 36; do
    cp "$tmp/l/host/weights.bin" "$tmp/w.bin"
    printf '\001' | dd of="$tmp/w.bin" bs=1 seek=$off conv=notrunc 2> /dev/null
    expect 2 "not a weight blob" "$p" --weights "$tmp/w.bin" "$tmp/in"
  done
elif [ $have_cc = 1 ]; then
  bad "verify left no program to run"
fi

echo "test_hostile_files: $pass passed, $fail failed"
[ "$fail" = 0 ]
