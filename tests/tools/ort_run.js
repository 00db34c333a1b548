#!/usr/bin/env node
// ort_run.js - runs a model in ONNX Runtime (CPU) to make reference outputs
// and reference timings for onnx2hls' checks and benchmarks.
// usage: node ort_run.js MODEL.onnx IN.f32 DIMS OUT.f32 [--threads N] [--time RUNS]
//   IN/OUT are raw little-endian float32; DIMS like 1,3,224,224 (first input).
//   With --time, prints {"median_ms": ...} after RUNS timed runs.
// Needs onnxruntime-node (installed by scripts/setup.sh into node_modules/).
'use strict';
const fs = require('fs');
const ort = require('onnxruntime-node');

function option(args, key, dflt) {
  const i = args.indexOf(key);
  return i < 0 ? dflt : Number(args[i + 1]);
}

async function main() {
  const args = process.argv.slice(2);
  if (args.length < 4) throw new Error('usage: ort_run.js MODEL IN.f32 DIMS OUT.f32 [--threads N] [--time RUNS]');
  const [model, input, dims, output] = args;
  const threads = option(args, '--threads', 1);
  const runs = option(args, '--time', 0);
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: threads, interOpNumThreads: 1,
    graphOptimizationLevel: 'all', logSeverityLevel: 3,
  });
  const bytes = fs.readFileSync(input);
  const data = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
  const shape = dims.split(',').map(Number);
  const feeds = { [session.inputNames[0]]: new ort.Tensor('float32', data, shape) };
  const result = await session.run(feeds);
  const y = result[session.outputNames[0]];
  fs.writeFileSync(output, Buffer.from(y.data.buffer, y.data.byteOffset, y.data.byteLength));
  const report = { output: session.outputNames[0], dims: y.dims };
  if (runs > 0) {
    const times = [];
    for (let i = 0; i < runs; i++) {
      const t0 = process.hrtime.bigint();
      await session.run(feeds);
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    times.sort((a, b) => a - b);
    report.median_ms = times[times.length >> 1];
    report.min_ms = times[0];
  }
  console.log(JSON.stringify(report));
}

main().catch((e) => { console.error(`ort_run.js: ${e.message || e}`); process.exit(2); });
