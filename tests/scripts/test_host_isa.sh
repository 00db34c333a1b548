#!/usr/bin/env bash
# test_host_isa.sh - `make ISA=multi`: one x86-64 program holding the model
# and runtime compiled for several instruction-set levels, one chosen at run
# time. For a sample compiled float and int8, the multi program run with each
# level forced (O2H_ISA=LEVEL) gives the same bytes as the single build of
# that level (make ARCH='the level's flags'), and O2H_ISA=auto / unset picks
# the best level this CPU supports; levels the CPU lacks are refused with a
# message. The program defines every function model.h declares, from the
# dispatcher only (no level's runtime symbol leaks). CMake's O2H_ISA=multi
# (embedded weights: no model_init_file) gives the same bytes too. Bad uses
# (a non-x86-64 compiler, objcopy missing, an unknown level, ISA=other,
# RUNTIME=installed, -march in CFLAGS) stop make with a message naming the problem.
# Every build uses CFLAGS=-O1 (set O2H_ISA_TEST_CFLAGS to change): the
# property tested holds for any flags both builds share, and -O1 compiles
# the runtime about twice as fast as -O3.
# Skips (exit 77) on a machine that is not x86-64 or without cc/make/objcopy.
# usage: test_host_isa.sh ONNX2HLS SOURCE_DIR BUILD_DIR
set -u
unset O2H_ISA
bin=$(realpath "$1") src=$(realpath "$2") build=$(realpath "$3")
work=$build/test_host_isa
cflags=${O2H_ISA_TEST_CFLAGS:--O1}
for t in cc make objcopy nm; do
    command -v $t > /dev/null || { echo "skipped: $t not found"; exit 77; }
done
case "$(cc -dumpmachine)" in
x86_64-*) ;;
*) echo "skipped: cc does not target x86-64 ($(cc -dumpmachine))"; exit 77 ;;
esac
rm -rf "$work" && mkdir -p "$work"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
ok() { echo "ok: $*"; }

# levels, their flags (as in the generated Makefile), and whether this CPU runs them
declare -A flags=([v1]="-march=x86-64" [v3]="-march=x86-64-v3" [v4]="-march=x86-64-v4"
    [v4vnni]="-march=x86-64-v4 -mavx512vnni -mavx512vbmi")
levels="v1 v3 v4 v4vnni"
cpu=$(grep -m1 '^flags' /proc/cpuinfo 2> /dev/null)
has() { for f in "$@"; do [[ " $cpu " == *" $f "* ]] || return 1; done; }
declare -A runs=([v1]=1)
has avx2 fma bmi2 && runs[v3]=1
has avx2 fma bmi2 avx512f avx512bw avx512cd avx512dq avx512vl && runs[v4]=1
[ -n "${runs[v4]:-}" ] && has avx512_vnni avx512vbmi && runs[v4vnni]=1
best=v1
for l in $levels; do [ -n "${runs[$l]:-}" ] && best=$l; done

s=effnet_tiny in=$src/samples/$s.in.f32
"$bin" compile "$src/samples/$s.onnx" -o "$work/float" --quiet || { bad "float compile"; exit 1; }
"$bin" compile "$src/samples/$s.onnx" -o "$work/int8" --precision int8 --calib "$in" --quiet ||
    { bad "int8 compile"; exit 1; }
grep -q 'ISA=multi' "$work/float/host/Makefile" && [ -f "$work/float/host/isa_dispatch.c" ] ||
    bad "OUT/host has no ISA=multi build"

# the dispatcher is clean C for GCC and clang
for c in gcc clang; do
    command -v $c > /dev/null || continue
    $c -std=c11 -Wall -Wextra -Wpedantic -Werror -march=x86-64 -O2 -I"$work/float/host" \
        -DO2H_ISA_HAVE_v1 -DO2H_ISA_HAVE_v3 -DO2H_ISA_HAVE_v4 -DO2H_ISA_HAVE_v4vnni \
        -c "$work/float/host/isa_dispatch.c" -o "$work/disp-$c.o" && ok "isa_dispatch.c: $c -Werror" ||
        bad "isa_dispatch.c does not build warning-free with $c"
done

# run P NAME ENV...: output of program P into $work/NAME.out (stderr kept in NAME.err)
run() {
    local p=$1 name=$2
    shift 2
    (cd "$(dirname "$p")" && env "$@" "$p" -o "$work/$name.out" "$in" > /dev/null 2> "$work/$name.err")
}

for prec in float int8; do
    h=$work/$prec/host
    for l in $levels; do
        make -s -C "$h" CFLAGS="$cflags ${flags[$l]}" BUILD="build-$l" PROG="model-$l" RUNTIME=copy \
            > "$work/$prec-$l.log" 2>&1 || { cat "$work/$prec-$l.log"; bad "$prec: single build $l"; }
    done
    make -s -C "$h" ISA=multi CFLAGS="$cflags" ISAS="v3 v4 v4vnni" > "$work/$prec-multi.log" 2>&1 ||
        { cat "$work/$prec-multi.log"; bad "$prec: make ISA=multi"; continue; }
    [ -x "$h/model" ] && [ -d "$h/build-multi/v4vnni/runtime" ] || bad "$prec: no ./model from build-multi/"
    # model.h's functions are the dispatcher's; the levels export nothing else
    decl=$(sed -n 's/^[a-z].*[ *]\(model_[a-z_]*\)(.*/\1/p' "$h/model.h" | sort -u)
    defs=$(nm --defined-only "$h/build-multi/isa_dispatch.o" | awk '$2 == "T" { print $3 }' | sort -u)
    [ "$decl" = "$defs" ] && ok "$prec: isa_dispatch.c defines model.h's functions ($(echo $decl | wc -w))" ||
        bad "$prec: model.h declares [$(echo $decl)], isa_dispatch.c defines [$(echo $defs)]"
    leaks=$(nm --defined-only -g "$h"/build-multi/isa_v*.o | awk 'NF == 3 { print $3 }' |
        grep -v -E '^(isa_v[0-9a-z]+_model_[a-z_]+|model_(inputs|outputs|num_inputs|num_outputs|layers))$')
    [ -z "$leaks" ] && ok "$prec: each level exports only its renamed API" || bad "$prec: exported: $leaks"
    for l in $levels; do
        if [ -z "${runs[$l]:-}" ]; then   # its single build is not run either: it would die of SIGILL
            run "$h/model" "$prec-multi-$l" O2H_ISA=$l && bad "$prec: O2H_ISA=$l ran on a CPU without it"
            grep -q 'does not support' "$work/$prec-multi-$l.err" && ok "$prec: O2H_ISA=$l refused on this CPU" ||
                bad "$prec: O2H_ISA=$l: $(cat "$work/$prec-multi-$l.err")"
            continue
        fi
        run "$h/model-$l" "$prec-$l" || { bad "$prec: single $l run"; continue; }
        run "$h/model" "$prec-multi-$l" O2H_ISA=$l || { bad "$prec: O2H_ISA=$l run"; continue; }
        grep -q "running the $l kernels" "$work/$prec-multi-$l.err" || bad "$prec: O2H_ISA=$l did not report $l"
        cmp -s "$work/$prec-$l.out" "$work/$prec-multi-$l.out" &&
            ok "$prec: O2H_ISA=$l = single build $l, byte for byte" || bad "$prec: O2H_ISA=$l differs from single $l"
    done
    run "$h/model" "$prec-auto" O2H_ISA=auto && grep -q "running the $best kernels" "$work/$prec-auto.err" &&
        ok "$prec: O2H_ISA=auto picks $best" || bad "$prec: auto: $(cat "$work/$prec-auto.err")"
    run "$h/model" "$prec-unset" && [ ! -s "$work/$prec-unset.err" ] && cmp -s "$work/$prec-unset.out" "$work/$prec-$best.out" &&
        ok "$prec: unset O2H_ISA: silent, output of $best" || bad "$prec: default run"
    run "$h/model" "$prec-bogus" O2H_ISA=v9 && bad "$prec: O2H_ISA=v9 ran"
    grep -q 'not a level of this program' "$work/$prec-bogus.err" && ok "$prec: O2H_ISA=v9 refused" ||
        bad "$prec: O2H_ISA=v9: $(cat "$work/$prec-bogus.err")"
done
# the levels' float results differ somewhere, or forcing them would prove little
cmp -s "$work/float-v1.out" "$work/float-v4vnni.out" && echo "note: float v1 and v4vnni outputs are equal"

# CMake, embedded weights (no model_init_file), v1 and v3 only
e=$work/embed
if command -v cmake > /dev/null; then
    "$bin" compile "$src/samples/$s.onnx" -o "$e" --embed-weights --quiet || bad "embedded compile"
    if cmake -S "$e/host" -B "$e/cb" -DO2H_ISA=multi -DO2H_ISAS=v3 -DCMAKE_BUILD_TYPE=Release \
            -DCMAKE_C_FLAGS_RELEASE="$cflags" > "$work/cmake.log" 2>&1 &&
        cmake --build "$e/cb" >> "$work/cmake.log" 2>&1; then
        for l in v1 v3; do
            [ -n "${runs[$l]:-}" ] || continue
            (cd "$work" && O2H_ISA=$l "$e/cb/model" -o "$work/cmake-$l.out" "$in" > /dev/null 2>&1) &&
                cmp -s "$work/float-$l.out" "$work/cmake-$l.out" && ok "CMake O2H_ISA=multi, embedded weights: $l = single $l" ||
                bad "CMake multi $l"
        done
    else
        tail -20 "$work/cmake.log"; bad "CMake -DO2H_ISA=multi build"
    fi
fi

# bad uses stop make with a message
h=$work/float/host
make -n -C "$h" ISA=multi BUILD=build-dry > "$work/dry.log" 2>&1 &&
    grep -Eq -- '-O3 +-march=x86-64-v4 -mavx512vnni -mavx512vbmi .*runtime/rt_conv.c' "$work/dry.log" &&
    ok "default flags: -O3 and each level's" || { tail -5 "$work/dry.log"; bad "make -n ISA=multi"; }
printf '#!/bin/sh\n[ "$1" = -dumpmachine ] && echo aarch64-linux-gnu && exit 0\nexit 1\n' > "$work/fakecc"
chmod +x "$work/fakecc"
refused() {   # refused WHAT PATTERN MAKE-ARGS...
    local what=$1 pat=$2
    shift 2
    if make -C "$h" BUILD=build-bad "$@" > "$work/bad.log" 2>&1; then
        bad "$what: make succeeded"
    elif grep -q -- "$pat" "$work/bad.log"; then
        ok "$what: $(grep -o -m1 -- "$pat.*" "$work/bad.log" | cut -c1-90)"
    else
        cat "$work/bad.log"; bad "$what: no clear message"
    fi
}
refused "a non-x86-64 compiler" "builds x86-64 programs" ISA=multi CC="$work/fakecc"
refused "objcopy missing" "needs objcopy" ISA=multi OBJCOPY=/nonexistent/objcopy
refused "an unknown level" "unknown level" ISA=multi ISAS="v3 v5"
refused "ISA=other" "the one value is ISA=multi" ISA=avx2
refused "-march in CFLAGS" "take '-march=native' out of CFLAGS" ISA=multi CFLAGS="-O2 -march=native"
refused "RUNTIME=installed" "compiles runtime/ once per level" ISA=multi RUNTIME=installed
exit $fail
