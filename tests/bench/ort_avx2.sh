#!/usr/bin/env bash
# ort_avx2.sh - a copy of onnxruntime-node that runs its AVX2 kernels on a
# machine with AVX-512, so that an -march=x86-64-v3 host program can be
# compared with ONNX Runtime at the same ISA level on the same core.
# ONNX Runtime has no switch for this: it picks its kernels at run time
# from CPUID and from XCR0, the register in which the OS says which vector
# state it saves (read with XGETBV). Every XGETBV instruction of the copied
# libonnxruntime is replaced by `push 7; pop rax` (same 3 bytes): XCR0 then
# reads x87 | SSE | AVX state and no AVX-512 state, what Linux reports
# when booted with clearcpuid=avx512f, and every AVX-512 path (MLAS and
# the rest) stays off while AVX2/FMA ones are taken. Outputs of the copy
# are unchanged in value (checked on MobileNetV2: identical to the last
# bit); only the kernels differ.
# Each site is found by disassembling (objdump) and checked to hold the
# XGETBV bytes before it is written; the file offset comes from the LOAD
# segment holding the address.
# usage: ort_avx2.sh NODE_MODULES OUTDIR   -> OUTDIR/node_modules, exit 0;
#        exit 1 with a message when the copy cannot be made (not x86-64,
#        no objdump, no XGETBV found, unexpected bytes).
set -u
src=${1:?usage: ort_avx2.sh NODE_MODULES OUTDIR}
dst=${2:?usage: ort_avx2.sh NODE_MODULES OUTDIR}/node_modules
fail() { echo "ort_avx2: $*" >&2; exit 1; }
[ "$(uname -m)" = x86_64 ] || fail "not an x86-64 machine"
command -v objdump > /dev/null && command -v readelf > /dev/null ||
    fail "objdump or readelf not found (binutils)"
lib=$(ls "$src"/onnxruntime-node/bin/napi-v*/linux/x64/libonnxruntime.so* 2> /dev/null | head -1)
[ -n "$lib" ] || fail "no libonnxruntime.so under $src/onnxruntime-node"
# the other packages (onnxruntime-common ...) are linked, onnxruntime-node copied
rm -rf "$dst" && mkdir -p "$dst" || fail "cannot create $dst"
for p in "$src"/*; do
    [ "$(basename "$p")" = onnxruntime-node ] || ln -s "$(cd "$p" && pwd)" "$dst/"
done
cp -r "$src/onnxruntime-node" "$dst/" || fail "cannot copy $src/onnxruntime-node"
lib=$dst/${lib#"$src"/}

# offset ADDR: file offset of virtual address ADDR (hex) via the LOAD segments
offset() {
    local a=$((16#$1)) kind off va _ sz
    while read -r kind off va _ _ sz _; do
        [ "$kind" = LOAD ] || continue
        ((a >= va && a < va + sz)) && { echo $((a - va + off)); return; }
    done < <(readelf -lW "$lib")
}

sites=$(objdump -d "$lib" | awk '$NF == "xgetbv" { sub(":", "", $1); print $1 }')
[ -n "$sites" ] || fail "no XGETBV in $lib"
n=0
for a in $sites; do
    o=$(offset "$a")
    [ -n "$o" ] || fail "address $a of $lib is in no LOAD segment"
    [ "$(od -An -tx1 -j "$o" -N 3 "$lib" | tr -d " \n")" = 0f01d0 ] || fail "bytes at $a of $lib are not XGETBV"
    printf '\x6a\x07\x58' | dd of="$lib" bs=1 seek="$o" conv=notrunc status=none || fail "cannot write $lib"
    n=$((n + 1))
done
echo "ort_avx2: $dst ($n XGETBV sites of $(basename "$lib") read XCR0 = 7)"
