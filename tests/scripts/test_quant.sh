#!/usr/bin/env bash
# test_quant.sh - the quantization options of `onnx2hls compile` end to end
# on the bundled samples (no shared models needed):
#   - int8 / dfxp8 / dfxp16 / int16 host programs build, run and stay close
#     to the float reference (onnx2hls verify with a tolerance); --dump
#     writes the layer results, or exits 2 once for a missing folder;
#   - --emit qdq, then compiling the QDQ file again (its scales imported)
#     gives a host program with exactly the same output bytes;
#   - mixed precision from --precision-spec; the calibration methods;
#   - bad input exits 2 with a message naming the file (and line);
#   - when ONNX Runtime is available: its output on the QDQ export agrees
#     with ours within 1 output LSB (skipped otherwise).
# usage: test_quant.sh ONNX2HLS SOURCE_DIR BUILD_DIR
set -u
bin=$1 src=$2 build=$3
work=$(mktemp -d "$build/test_quant.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0
samples=$src/samples
cflags=${QUANT_TEST_CFLAGS:--O1}   # generated code at -O3 -march=native: tests/unit/test_quant_e2e.c

check() { # check NAME CONDITION-EXIT-CODE
    if [ "$2" -eq 0 ]; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi
}

expect_exit() { # expect_exit NAME CODE PATTERN -- command...
    local name=$1 code=$2 pat=$3
    shift 4
    "$@" > "$work/out.txt" 2>&1
    local rc=$?
    if [ "$rc" -eq "$code" ] && grep -q -- "$pat" "$work/out.txt"; then
        echo "ok   $name"
    else
        echo "FAIL $name (exit $rc, want $code and '$pat'):"; sed 's/^/     /' "$work/out.txt" | head -5; fail=1
    fi
}

compile_run() { # compile_run TAG MODEL PREC [extra options] -> $work/TAG/out.f32
    local tag=$1 model=$2 prec=$3
    shift 3
    "$bin" compile "$samples/$model.onnx" -o "$work/$tag" --precision "$prec" "$@" \
        > "$work/$tag.log" 2>&1 || { cat "$work/$tag.log"; return 1; }
    [ -d "$work/$tag/host" ] || return 0
    [ -n "${NO_BUILD:-}" ] && return 0
    make -s -C "$work/$tag/host" CFLAGS="$cflags" > "$work/$tag.build" 2>&1 || { tail -5 "$work/$tag.build"; return 1; }
    "$work/$tag/host/model" --weights "$work/$tag/host/weights.bin" -o "$work/$tag/out.f32" \
        "$samples/$model.in.f32" > /dev/null
}

# ---------------------------------------------------------- precisions
for mp in mobilenet_tiny:int8 resnet_tiny:int8 effnet_tiny:int8 mobilenet_tiny:dfxp8 resnet_tiny:dfxp16 \
          effnet_tiny:int16; do
    m=${mp%%:*}
    for p in ${mp#*:}; do
        tol=0.05
        [ "$p" = dfxp8 ] && tol=0.1
        [ "$p" = dfxp16 ] || [ "$p" = int16 ] && tol=0.01
        compile_run "$m-$p" "$m" "$p" --calib "$samples/$m.in.f32"
        check "$m $p compiles and runs" $?
        "$bin" verify "$work/$m-$p" --input "$samples/$m.in.f32" --reference "$samples/$m.ref.f32" \
            --tol "$tol" > "$work/verify.txt" 2>&1
        check "$m $p within $tol of the float reference ($(grep -o 'relative [0-9.e-]*' "$work/verify.txt"))" $?
    done
done

# ---------------------------------------------------------- --dump
# every integer layer result to a folder; one that cannot be written exits 2,
# said once, naming the path
p=$work/resnet_tiny-int8/host/model
if [ -x "$p" ]; then
    run_dump() { "$p" --weights "$work/resnet_tiny-int8/host/weights.bin" --dump "$1" "$samples/resnet_tiny.in.f32"; }
    mkdir "$work/dump" && run_dump "$work/dump" > /dev/null && [ -n "$(ls "$work/dump")" ]
    check "resnet_tiny int8 --dump writes the layer results" $?
    expect_exit "resnet_tiny int8 --dump into a missing folder" 2 "cannot write $work/none/t" -- run_dump "$work/none"
    [ "$(grep -c 'cannot write' "$work/out.txt")" = 1 ]
    check "resnet_tiny int8 --dump failure said once" $?
fi

# ---------------------------------------------------------- QDQ round trip
for m in mobilenet_tiny resnet_tiny effnet_tiny; do
    compile_run "$m-q" "$m" int8 --calib "$samples/$m.in.f32" --emit host,qdq
    check "$m int8 with --emit host,qdq" $?
    [ -f "$work/$m-q/model.qdq.onnx" ]
    check "$m wrote model.qdq.onnx" $?
    "$bin" compile "$work/$m-q/model.qdq.onnx" -o "$work/$m-rt" > "$work/rt.log" 2>&1 &&
        make -s -C "$work/$m-rt/host" CFLAGS="$cflags" > /dev/null 2>&1 &&
        "$work/$m-rt/host/model" --weights "$work/$m-rt/host/weights.bin" -o "$work/$m-rt.f32" \
            "$samples/$m.in.f32" > /dev/null
    check "$m QDQ file compiles without options (scales imported)" $?
    ! grep -q "calibrating" "$work/rt.log"
    check "$m QDQ import needs no calibration" $?
    cmp -s "$work/$m-q/out.f32" "$work/$m-rt.f32"
    check "$m QDQ export -> import: identical integer output" $?
done

# ---------------------------------------------------------- mixed precision, methods
cat > "$work/spec.txt" <<'EOF'
# mixed precision: default int8, first conv dfxp16, classifier float
*        int8
conv_3   dfxp16
gemm_88  float
EOF
compile_run mixed mobilenet_tiny int8 --calib "$samples/mobilenet_tiny.in.f32" --precision-spec "$work/spec.txt"
check "mixed precision spec compiles and runs" $?
"$bin" verify "$work/mixed" --input "$samples/mobilenet_tiny.in.f32" \
    --reference "$samples/mobilenet_tiny.ref.f32" --tol 0.05 > /dev/null 2>&1
check "mixed precision within 0.05 of the float reference" $?
grep -q "o2h_conv2d_s16" "$work/mixed/host/model.c" && grep -q "o2h_gemm_f32" "$work/mixed/host/model.c"
check "mixed precision: 16-bit conv and float Gemm in model.c" $?
for meth in percentile mse percentile:99.9; do
    NO_BUILD=1 compile_run "meth-${meth%%:*}" mobilenet_tiny int8 --calib "$samples/mobilenet_tiny.in.f32" \
        --calib-method "$meth"
    check "--calib-method $meth" $?
done
NO_BUILD=1 compile_run rand mobilenet_tiny int8 --calib-inputs 3
check "pseudo-random calibration" $?
grep -q "no --calib given" "$work/rand.log"
check "pseudo-random calibration warns" $?

# ---------------------------------------------------------- bad input
m=$samples/mobilenet_tiny.onnx
expect_exit "unknown precision" 2 "int7" -- "$bin" compile "$m" -o "$work/x" --precision int7
expect_exit "missing --calib file" 2 "nope.f32" -- "$bin" compile "$m" -o "$work/x" --precision int8 --calib "$work/nope.f32"
head -c 1000 "$samples/mobilenet_tiny.in.f32" > "$work/short.f32"
expect_exit "--calib of a wrong size" 2 "short.f32" -- "$bin" compile "$m" -o "$work/x" --precision int8 --calib "$work/short.f32"
expect_exit "unknown calibration method" 2 "calib-method" -- "$bin" compile "$m" -o "$work/x" --precision int8 --calib-method kl
printf 'conv_0 int9\n' > "$work/bad_spec.txt"
expect_exit "bad precision spec line" 2 "bad_spec.txt.*line 1" -- "$bin" compile "$m" -o "$work/x" --precision-spec "$work/bad_spec.txt"
expect_exit "QDQ export of 16-bit layers" 2 "opset 21" -- "$bin" compile "$m" -o "$work/x" --precision dfxp16 --emit qdq --calib-inputs 1
[ ! -e "$work/x" ]
check "failed compiles leave no output folder" $?

# ---------------------------------------------------------- ONNX Runtime on the QDQ export
np=${ONNX2HLS_ORT_NODE_PATH:-}
for cand in "$np" "$src/node_modules"; do
    [ -n "$cand" ] && [ -d "$cand/onnxruntime-node" ] && { np=$cand; break; }
done
if [ -n "$np" ] && [ -d "$np/onnxruntime-node" ] && command -v node > /dev/null; then
    for md in mobilenet_tiny:1,3,32,32 resnet_tiny:1,3,64,64 effnet_tiny:1,3,32,32; do
        m=${md%%:*} dims=${md#*:}
        scale=$(sed -n "s/^quantize: output .* = (q - .*) \* \([0-9.e+-]*\) .*/\1/p" "$work/$m-q.log" | head -1)
        # --opt basic: the QDQ pairs as written, not ONNX Runtime's fused integer
        # kernels, which saturate on x86-64 without VNNI (tools/ort_ref.js)
        NODE_PATH=$np node "$src/tools/ort_ref.js" "$work/$m-q/model.qdq.onnx" --opt basic \
            --input "" "float32:$dims" "$samples/$m.in.f32" --output "" "$work/$m-ort.f32" > /dev/null 2>&1
        r=$(node -e '
            const fs = require("fs");
            const f32 = p => { const b = fs.readFileSync(p); const a = new ArrayBuffer(b.length);
                               new Uint8Array(a).set(b); return new Float32Array(a); };
            const A = f32(process.argv[1]), B = f32(process.argv[2]), s = Number(process.argv[3]);
            let ok = 0; for (let i = 0; i < A.length; i++) ok += Math.round(Math.abs(A[i] - B[i]) / s) <= 1;
            console.log(A.length === B.length && s > 0 ? ok / A.length : -1);' \
            "$work/$m-q/out.f32" "$work/$m-ort.f32" "$scale" 2>/dev/null)
        awk -v r="${r:--1}" 'BEGIN { exit !(r >= 0.99) }'
        check "$m: ONNX Runtime on the QDQ export within 1 LSB on ${r:-?} of the outputs" $?
    done
else
    echo "skip ONNX Runtime comparison (onnxruntime-node not found; set ONNX2HLS_ORT_NODE_PATH)"
fi

[ "$fail" -eq 0 ] && echo "test_quant: all passed" || echo "test_quant: FAILED"
exit "$fail"
