#!/usr/bin/env node
// ort_ref.js - run an ONNX model through ONNX Runtime (CPU) on raw input
// files and write its outputs as raw files: the reference `onnx2hls verify`
// and the benchmarks compare the generated host C against.
//
// usage: node ort_ref.js MODEL.onnx
//            [--input NAME DTYPE:D0,D1,... FILE]...   (DTYPE: float32, int64, ...)
//            [--output NAME FILE]...                  (default: every output to stdout summary)
//   An empty NAME ("") means the input or output at that position.
//            [--threads N] [--time RUNS] [--profile RUNS] [--opt LEVEL]
// Files are raw little-endian data. With --time, prints one JSON line
// {"median_ms": ..., "min_ms": ..., "cpu_median_ms": ...} over RUNS runs after
// the first (cpu: user + system time of the process). With --profile, ONNX
// Runtime's own profiler times RUNS more runs and each node's median is printed
// as the generated program's `model --profile` prints its layers: a row per
// node (kind as `onnx2hls inspect` names it: pwconv, dwconv, conv, fc ...),
// sums by kind, then sum_ms. --opt sets ONNX Runtime's graph optimization
// level (disabled, basic, extended, all; default all). A QDQ model's meaning
// is its DequantizeLinear / QuantizeLinear pairs around float ops, and
// `basic` keeps them; from `extended` on ONNX Runtime fuses them into its
// integer kernels, whose u8 x s8 products on x86-64 without VNNI
// (vpmaddubsw) saturate 16-bit pair sums: on a Zen 3 the fused run of a
// sample's int8 QDQ export read up to 37 LSB off the unfused one.
// Needs onnxruntime-node on NODE_PATH (npm install --ignore-scripts onnxruntime-node@1.30.0).
'use strict';
const fs = require('fs');

const ARRAYS = {
  float32: Float32Array, float64: Float64Array, int8: Int8Array, uint8: Uint8Array,
  int16: Int16Array, uint16: Uint16Array, int32: Int32Array, uint32: Uint32Array,
  int64: BigInt64Array, uint64: BigUint64Array, bool: Uint8Array,
};
const ORT_TYPES = { float64: 'float64', bool: 'bool' };

function parseArgs(argv) {
  const a = { model: null, inputs: [], outputs: [], threads: 1, runs: 0, profile: 0, opt: 'all' };
  for (let i = 0; i < argv.length; i++) {
    const s = argv[i];
    if (s === '--input') {
      a.inputs.push({ name: argv[i + 1], spec: argv[i + 2], file: argv[i + 3] });
      i += 3;
    } else if (s === '--output') {
      a.outputs.push({ name: argv[i + 1], file: argv[i + 2] });
      i += 2;
    } else if (s === '--threads') {
      a.threads = Number(argv[++i]);
    } else if (s === '--time') {
      a.runs = Number(argv[++i]);
    } else if (s === '--profile') {
      a.profile = Number(argv[++i]);
    } else if (s === '--opt') {
      a.opt = argv[++i];
      if (!['disabled', 'basic', 'extended', 'all'].includes(a.opt))
        throw new Error(`--opt ${a.opt}: one of disabled, basic, extended, all`);
    } else if (!a.model) {
      a.model = s;
    } else {
      throw new Error(`unexpected argument ${s}`);
    }
  }
  if (!a.model) throw new Error('no model given');
  return a;
}

function makeTensor(ort, inp) {
  const [dtype, dims] = inp.spec.split(':');
  const Arr = ARRAYS[dtype];
  if (!Arr) throw new Error(`unsupported dtype ${dtype} for input ${inp.name}`);
  const shape = dims ? dims.split(',').filter((d) => d.length).map(Number) : [];
  const buf = fs.readFileSync(inp.file);
  const copy = new Uint8Array(buf.length);
  copy.set(buf);
  const data = new Arr(copy.buffer, 0, buf.length / Arr.BYTES_PER_ELEMENT);
  return new ort.Tensor(ORT_TYPES[dtype] || dtype, data, shape);
}

function toBuffer(t) {
  const d = t.data;
  if (Array.isArray(d)) return Buffer.from(Uint8Array.from(d.map((v) => (v ? 1 : 0))));
  return Buffer.from(d.buffer, d.byteOffset, d.byteLength);
}

// A profiled node's kind, from its op and shapes (NCHWc tensors are 5-D:
// channels = dims[1] * dims[4]).
function nodeKind(ev) {
  const op = ev.args.op_name, shapes = (ev.args.input_type_shape || []).map((t) => Object.values(t)[0]);
  if (/^(Gemm|FusedGemm|MatMul|FusedMatMul)$/.test(op)) return 'fc';
  if (/^(GlobalAveragePool|GlobalMaxPool)$/.test(op)) return 'gpool';
  if (/^(MaxPool|AveragePool)$/.test(op)) return 'pool';
  if (/^(Add|Mul|Sub|Div|Sum)$/.test(op)) return 'eltwise';
  if (/^Reduce/.test(op)) return 'reduce';
  if (!/Conv$/.test(op) || shapes.length < 2) return op.toLowerCase();
  const x = shapes[0], w = shapes[1];
  const c = x.length === 5 ? x[1] * x[4] : x[1];
  if (w[1] === 1 && c > 1) return 'dwconv';
  if (w[1] !== c) return 'gconv';
  return w.length === 4 && w[2] === 1 && w[3] === 1 ? 'pwconv' : 'conv';
}

// Median kernel time per node (ms) from a profile file's events, in run
// order, leaving out each node's first run (the untimed warm-up one).
function nodeMedians(events) {
  const by = new Map();
  for (const ev of events) {
    if (ev.cat !== 'Node' || !ev.name.endsWith('_kernel_time')) continue;
    const name = ev.name.slice(0, -'_kernel_time'.length);
    if (!by.has(name)) by.set(name, { name, kind: nodeKind(ev), t: [] });
    by.get(name).t.push(ev.dur / 1e3);
  }
  return [...by.values()].map((n) => {
    if (n.t.length > 1) n.t.shift();
    n.t.sort((p, q) => p - q);
    return { name: n.name, kind: n.kind, ms: n.t[n.t.length >> 1] };
  });
}

function printProfile(nodes, runs) {
  const sum = nodes.reduce((s, n) => s + n.ms, 0), kinds = new Map();
  console.log(`profile: median of ${runs} runs per node (ONNX Runtime's profiler)`);
  console.log('node  kind          ms  share  name');
  nodes.forEach((n, i) => {
    console.log(`${String(i).padStart(4)}  ${n.kind.padEnd(10)} ${n.ms.toFixed(4)} ${(100 * n.ms / sum).toFixed(1).padStart(5)}%  ${n.name}`);
    const k = kinds.get(n.kind) || { n: 0, ms: 0 };
    kinds.set(n.kind, { n: k.n + 1, ms: k.ms + n.ms });
  });
  console.log('by kind:');
  for (const [k, v] of kinds)
    console.log(`  ${k.padEnd(10)} ${String(v.n).padStart(4)} nodes ${v.ms.toFixed(4)} ${(100 * v.ms / sum).toFixed(1).padStart(5)}%`);
  console.log(`sum_ms ${sum.toFixed(4)} runs ${runs}`);
}

async function profileRuns(ort, a, feeds) {
  const dir = fs.mkdtempSync(require('path').join(require('os').tmpdir(), 'ort_profile-'));
  try {
    const s = await ort.InferenceSession.create(a.model, {
      intraOpNumThreads: a.threads, interOpNumThreads: 1, graphOptimizationLevel: a.opt,
      logSeverityLevel: 3, enableProfiling: true, profileFilePrefix: `${dir}/p`,
    });
    for (let i = 0; i <= a.profile; i++) await s.run(feeds);
    s.endProfiling();
    const files = fs.readdirSync(dir);
    if (files.length !== 1) throw new Error('ONNX Runtime wrote no profile');
    printProfile(nodeMedians(JSON.parse(fs.readFileSync(`${dir}/${files[0]}`, 'utf8'))), a.profile);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

(async () => {
  const ort = require('onnxruntime-node');
  const a = parseArgs(process.argv.slice(2));
  const s = await ort.InferenceSession.create(a.model, {
    intraOpNumThreads: a.threads, interOpNumThreads: 1, graphOptimizationLevel: a.opt,
    logSeverityLevel: 3,
  });
  const feeds = {};
  a.inputs.forEach((inp, i) => {
    feeds[inp.name || s.inputNames[i]] = makeTensor(ort, inp);
  });
  const r = await s.run(feeds);
  a.outputs.forEach((o, i) => {
    const name = o.name || s.outputNames[i]; /* "" = the i-th output */
    if (!(name in r)) throw new Error(`the model has no output ${name}`);
    fs.writeFileSync(o.file, toBuffer(r[name]));
  });
  if (a.outputs.length === 0)
    for (const n of s.outputNames) console.log(JSON.stringify({ output: n, dims: r[n].dims }));
  if (a.runs > 0) {
    const t = [], c = [];
    for (let i = 0; i < a.runs; i++) {
      const t0 = process.hrtime.bigint(), c0 = process.cpuUsage();
      await s.run(feeds);
      const dc = process.cpuUsage(c0);
      t.push(Number(process.hrtime.bigint() - t0) / 1e6);
      c.push((dc.user + dc.system) / 1e3);
    }
    t.sort((p, q) => p - q);
    c.sort((p, q) => p - q);
    console.log(JSON.stringify({ threads: a.threads, runs: a.runs, median_ms: t[t.length >> 1], min_ms: t[0],
                                 cpu_median_ms: c[c.length >> 1] }));
  }
  if (a.profile > 0) await profileRuns(ort, a, feeds);
})().catch((e) => {
  console.error(`ort_ref.js: ${e.message || e}`);
  process.exit(1);
});
