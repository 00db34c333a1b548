#!/usr/bin/env bash
# test_install.sh - `cmake --install` of the build tree into a fresh prefix:
# onnx2hls, the runtime library built for this machine, its public headers
# and onnx2hls-rt.pc. A sample compiled by the installed onnx2hls builds
# against that library (no runtime object of its own) and matches ONNX
# Runtime's output; its int8 program gives the same bytes linked or with the
# runtime compiled in; a runtime/ copy that differs from the installed
# sources, another ARCH or RUNTIME=copy compile runtime/ instead; other
# flags in the same BUILD directory rebuild every object; a C
# program builds from pkg-config's flags alone.
# usage: test_install.sh ONNX2HLS SOURCE_DIR BUILD_DIR
# shellcheck disable=SC2015  # `check && ok || bad`: bad also when ok fails, which it cannot
set -u
src=$(realpath "$2") build=$(realpath "$3")
work=$build/test_install
command -v cmake > /dev/null && command -v pkg-config > /dev/null && command -v make > /dev/null ||
    { echo "cmake, pkg-config or make not found: skipped"; exit 77; }
rm -rf "$work" && mkdir -p "$work"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
ok() { echo "ok: $*"; }

p=$work/prefix
cmake --install "$build" --prefix "$p" > "$work/install.log" 2>&1 || { cat "$work/install.log"; bad "cmake --install"; exit 1; }
for f in bin/onnx2hls lib/libo2h_rt.a lib/pkgconfig/onnx2hls-rt.pc include/onnx2hls/o2h_rt.h \
    include/onnx2hls/o2h_rt_int.h share/onnx2hls/runtime/o2h_rt.h share/onnx2hls/tools/ort_ref.js; do
    [ -f "$p/$f" ] || bad "$f not installed"
done
[ -e "$p/include/onnx2hls/rt_internal.h" ] && bad "internal header installed"
export PKG_CONFIG_PATH=$p/lib/pkgconfig
unset ONNX2HLS_RUNTIME_DIR ONNX2HLS_DATA_DIR
inst=$p/bin/onnx2hls

# a program of its own from pkg-config's flags
cat > "$work/use.c" << 'EOF'
#include <o2h_rt.h>
#include <stdio.h>
int main(void)
{
    double t = o2h_cpu_ms();
    printf("%s %d\n", o2h_status_str(O2H_OK), t >= 0);
    return 0;
}
EOF
# shellcheck disable=SC2046
cc -std=c11 $(pkg-config --cflags onnx2hls-rt) "$work/use.c" $(pkg-config --libs onnx2hls-rt) -o "$work/use" &&
    [ "$("$work/use")" = "ok 1" ] && ok "a C program from pkg-config --cflags --libs" || bad "pkg-config build"

# float sample: built against the library, checked against ONNX Runtime's output
s=resnet_tiny in=$src/samples/$s.in.f32
"$inst" compile "$src/samples/$s.onnx" -o "$work/f" --quiet || bad "installed compile"
"$inst" verify "$work/f" --input "$in" --reference "$src/samples/$s.ref.f32" > "$work/verify.log" 2>&1 &&
    ok "float program linked with the installed runtime matches ONNX Runtime" || { cat "$work/verify.log"; bad "verify"; }
[ -f "$work/f/host/build/model.o" ] && [ ! -e "$work/f/host/build/runtime" ] &&
    ok "only the model's own files compiled" || bad "the runtime was compiled again"

# int8: linked and compiled-in runtime give the same bytes
"$inst" compile "$src/samples/$s.onnx" -o "$work/q" --precision int8 --calib "$in" --emit host --quiet || bad "int8 compile"
make -s -C "$work/q/host" > "$work/q.log" 2>&1 && make -s -C "$work/q/host" RUNTIME=copy BUILD=b2 PROG=m2 >> "$work/q.log" 2>&1 ||
    { cat "$work/q.log"; bad "int8 builds"; }
[ ! -e "$work/q/host/build/runtime" ] && [ -d "$work/q/host/b2/runtime" ] || bad "RUNTIME=copy did not compile runtime/"
"$work/q/host/model" -o "$work/q1.out" "$in" > /dev/null && "$work/q/host/m2" -o "$work/q2.out" "$in" > /dev/null &&
    cmp -s "$work/q1.out" "$work/q2.out" && ok "int8 outputs equal, linked or compiled in" || bad "int8 outputs differ"

# other flags in the same build directory rebuild it (never a link of stale objects)
qm() { make -q -C "$work/q/host" RUNTIME=copy BUILD=b2 PROG=m2 "$@" > /dev/null 2>&1; }
qm && ok "same flags: up to date" || bad "same flags: make would rebuild"
qm CFLAGS=-O1 && bad "other CFLAGS: make sees nothing to do" || ok "other CFLAGS rebuild"
make -s -C "$work/q/host" RUNTIME=copy BUILD=b2 PROG=m2 CFLAGS=-O1 > "$work/q3.log" 2>&1 && qm CFLAGS=-O1 &&
    ! qm && ok "the flags of the last build are the ones kept" || { cat "$work/q3.log"; bad "rebuild with other flags"; }

# the copy is compiled when it is not what the library was built from, or for another ARCH
compiles_runtime() { make -n -C "$work/f/host" BUILD=b3 "$@" 2> /dev/null | grep -q 'runtime/rt_conv.c'; }
compiles_runtime && bad "dry run of the default build compiles runtime/"
compiles_runtime ARCH= && ok "another ARCH compiles runtime/" || bad "ARCH= linked the installed library"
echo '/* changed */' >> "$work/f/host/runtime/rt_time.c"
compiles_runtime && ok "a changed runtime/ copy is compiled" || bad "a changed runtime/ linked the installed library"
exit $fail
