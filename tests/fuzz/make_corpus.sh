#!/usr/bin/env bash
# make_corpus.sh - the fuzz targets' seed corpus, made at test time from the samples, the
# tools and what a compile writes (nothing binary is kept in the tree for it):
#   load, passes, plan   samples/*.onnx, mkmodel's synthetic models, a few ONNX node-test models
#                        (libonnx-testdata, when installed)
#   manifest, blob       OUT/host/model.json and weights.bin of float, int8 and --bind compiles
#   device               device files (a full one, one on a base, every key)
#   precision_spec       specs naming the samples' layers (plain, quoted, '*', comments)
#   prune_spec           the same with ratios
#   calib                the samples' input images
#   bind                 a variant byte (tests/fuzz/fuzz_bind.c) + raw or TensorProto values
#   lint, lint_cfg       tests/data/lint, the HLS templates, the C of an int8 compile's OUT/hls;
#                        hls_config.cfg of both (hls-common/: that OUT/hls/common, for includes)
# usage: make_corpus.sh ONNX2HLS SOURCE_DIR BUILD_DIR   (writes BUILD_DIR/fuzz/corpus)
set -eu
o2h=$1 src=$2 bin=$3
out=$bin/fuzz/corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
new=$tmp/corpus
mkdir -p "$new"
for t in $(sed -n 's/^X(\([a-z_]*\)).*/\1/p' "$src/tests/fuzz/fuzz_targets.def"); do mkdir -p "$new/$t"; done
mk=$bin/tests/mkmodel
s=$src/samples

# --- models
for m in "$s"/*.onnx; do cp "$m" "$new/load/"; done
"$mk" bindable "$new/load/bindable.onnx"
"$mk" chain 3 "$new/load/chain3.onnx"
"$mk" adddag 4 "$new/load/adddag4.onnx"
"$mk" resblocks 1 "$new/load/resblocks1.onnx"
"$mk" shufflenet tiny "$new/load/shufflenet_tiny.onnx"
"$mk" inception "$new/load/inception.onnx"
"$mk" act HardSwish "$new/load/act_hardswish.onnx"
"$mk" names 'n"\x01#' "$new/load/names.onnx"
td=/usr/share/libonnx-testdata/data/node
if [ -d "$td" ]; then   # small models of many ops: every 25th node test
  i=0
  for d in "$td"/*/; do
    i=$((i + 1))
    [ $((i % 25)) = 0 ] && [ -f "$d/model.onnx" ] && cp "$d/model.onnx" "$new/load/node_$(basename "$d").onnx"
  done
fi
cp "$new"/load/* "$new/passes/"
cp "$new"/load/* "$new/plan/"

# --- compiles: model.json and weights.bin
"$o2h" compile "$s/mobilenet_tiny.onnx" -o "$tmp/f" --emit host > /dev/null
"$o2h" compile "$s/resnet_tiny.onnx" -o "$tmp/q" --precision int8 --emit host,hls > /dev/null 2>&1
"$o2h" compile "$new/load/chain3.onnx" -o "$tmp/e" --emit host --embed-weights > /dev/null
printf '\006\0\0\0\0\0\0\0\004\0\0\0\0\0\0\0' > "$tmp/shape.raw"
"$o2h" compile "$new/load/bindable.onnx" -o "$tmp/b" --emit host --bind "shape=$tmp/shape.raw" > /dev/null
for o in f q e b; do cp "$tmp/$o/host/model.json" "$new/manifest/$o.json"; done
for o in f q; do cp "$tmp/$o/host/weights.bin" "$new/blob/$o.bin"; done
"$o2h" compile "$new/load/chain3.onnx" -o "$tmp/c" --emit host > /dev/null
cp "$tmp/c/host/weights.bin" "$new/blob/chain3.bin"
head -c 40 "$tmp/c/host/weights.bin" > "$new/blob/header.bin"

# --- device files
d=$new/device
printf '{"name":"tiny","dsp":64,"bram18k":40,"lut":20000,"dram_gbps":1.6,"clock_mhz":100}\n' > "$d/tiny.json"
printf '{"base":"zcu104","clock_mhz":300}\n' > "$d/base.json"
printf '{"name":"all","board":"b","part":"xc7z020","dsp_kind":"DSP48E1","dsp":220,"bram18k":280,"uram":0,"lut":53200,"ff":106400,"dram_gbps":4.2,"clock_mhz":100,"axi_ports":4,"axi_bits":64,"axi_eff":0.7}\n' > "$d/all.json"
printf '{"base":"vck190","dsp_kind":"DSP58","uram":463,"axi_eff":1}\n' > "$d/versal.json"

# --- specs, from the layer names inspect prints
names() { "$o2h" inspect "$1" --json | sed -n 's/^{"index":[0-9]*,"name":"\([^"]*\)".*/\1/p'; }
names "$s/mobilenet_tiny.onnx" > "$tmp/mb.names"
names "$s/effnet_tiny.onnx" > "$tmp/ef.names"
names "$s/resnet_tiny.onnx" > "$tmp/rn.names"
precs=(int8 int16 dfxp8 dfxp12 dfxp14 dfxp16 float)
i=0
for f in mb ef; do
  while read -r n; do
    i=$((i + 1))
    echo "$n ${precs[$((i % 7))]}"
  done < "$tmp/$f.names" > "$new/precision_spec/$f-all.spec"
  { echo '# mixed'; echo '* int8'; sed -n '2p;5p' "$tmp/$f.names" | sed 's/$/ float/'
    sed -n '3p' "$tmp/$f.names" | sed 's/.*/"&" int16   # quoted/'; } > "$new/precision_spec/$f-mixed.spec"
done
printf '* dfxp12\n' > "$new/precision_spec/star.spec"
i=0
for f in mb rn; do
  while read -r n; do
    i=$((i + 1))
    echo "$n 0.$((i % 9))"
  done < "$tmp/$f.names" > "$new/prune_spec/$f-all.spec"
  { echo '* 0.25'; sed -n '1p;4p' "$tmp/$f.names" | sed 's/$/ 0.75/'; echo '"a b#" 0.5 # none'; } \
    > "$new/prune_spec/$f-mixed.spec"
done

# --- calibration images
cp "$s/mobilenet_tiny.in.f32" "$new/calib/mobilenet_tiny.f32"
cp "$s/mobilenet_tiny_bn.in.f32" "$new/calib/mobilenet_tiny_bn.f32"
head -c 64 "$s/effnet_tiny.in.f32" > "$new/calib/short.f32"

# --- bind: a variant byte (bit 0 raw, bit 1 binds x), then the value
b=$new/bind
{ printf '\001'; cat "$tmp/shape.raw"; } > "$b/shape_raw"
printf '\000\010\002\020\007\112\020\006\0\0\0\0\0\0\0\004\0\0\0\0\0\0\0' > "$b/shape_pb"
printf '\000\010\002\020\007\072\002\006\004' > "$b/shape_int64_data"   # int64_data [6, 4], packed
{ printf '\003'; head -c 96 "$s/mobilenet_tiny.in.f32"; } > "$b/x_raw"
{ printf '\002\010\001\010\002\010\003\010\004\020\001\112\140'; head -c 96 "$s/mobilenet_tiny.in.f32"; } > "$b/x_pb"

# --- lint: C files and configs
l=$new/lint
for f in "$src"/tests/data/lint/bad/*.c "$src"/tests/data/lint/good/top.c "$src"/tests/data/lint/good/engines/*.c \
         "$src"/templates/hls/*.c; do
  cp "$f" "$l/$(basename "$(dirname "$f")")_$(basename "$f")"
done
find "$tmp/q/hls" -name '*.c' -not -path '*/tb/*' | sort | head -40 | while read -r f; do
  cp "$f" "$l/out_$(basename "$f")"
done
cp -r "$tmp/q/hls/common" "$new/hls-common"
cp "$src/tests/data/lint/good/hls_config.cfg" "$new/lint_cfg/good.cfg"
cp "$tmp/q/hls/hls_config.cfg" "$new/lint_cfg/out.cfg"
printf '[hls]\nsyn.file=top.c\nsyn.file=engines/sum.c\nsyn.top=good_top\n' > "$new/lint_cfg/short.cfg"

rm -rf "$out"
mkdir -p "$(dirname "$out")"
mv "$new" "$out"
for t in "$out"/*/; do printf '%s %s\n' "$(basename "$t")" "$(find "$t" -type f | wc -l)"; done | tr '\n' ' '
echo
