#!/usr/bin/env node
// Mastra: 2,000 concurrent agent.stream() runs of 200 chunks each, started together.
// bench/run.py copies this file into the oracle folder and runs it with `node --expose-gc`.
//
// One agent, one model step streaming 200 text chunks (lib/mock-model.mjs's createMockModel),
// 20 sequential warm-up runs, gc(), baseline RSS, then Promise.all of all runs. Processors
// (PROCESSORS=0 for none): processInput (pass-through), processOutputStream (pass-through),
// processOutputStep (returns the message list). GC time = durations of perf_hooks "gc"
// entries during the batch. CAP seconds: every run stops reading its stream once the batch
// has taken longer (a timer cannot do it: the streams run on microtasks and starve timers),
// and only runs that read all their chunks count as finished.
import { PerformanceObserver } from 'node:perf_hooks';

process.env.MASTRA_TELEMETRY_DISABLED = '1';
for (const k of ['log', 'info', 'warn', 'debug']) console[k] = () => {};

const { Agent } = await import('@mastra/core/agent');
const { createMockModel } = await import('./lib/mock-model.mjs');

const env = (k, d) => (process.env[k] ? Number(process.env[k]) : d);
const C = env('C', 2000);
const N = env('N', 200);
const WARM = env('WARM', 20);
const CAP = env('CAP', 120);
const HOOKS = env('PROCESSORS', 3) > 0;
const gc = globalThis.gc ?? (() => {});
const round = (x, d = 3) => Math.round(x * 10 ** d) / 10 ** d;
const MiB = 1048576;

const text = Array.from({ length: N }, (_, i) => `t${i} `);
const agent = new Agent({
  id: 'bench-concurrency',
  name: 'bench-concurrency',
  instructions: 'You are a test agent.',
  model: createMockModel({ responseFor: () => ({ text }) }),
  ...(HOOKS
    ? {
        inputProcessors: [{ id: 'in', processInput: async ({ messages }) => messages }],
        outputProcessors: [
          { id: 'stream', processOutputStream: async ({ part }) => part },
          { id: 'step', processOutputStep: async ({ messageList }) => messageList },
        ],
      }
    : {}),
});

let deadline = Infinity;
let capped = false;

async function oneRun() {
  const out = await agent.stream('hi');
  let seen = 0;
  for await (const c of out.fullStream) {
    if (c.type === 'text-delta') seen++;
    if (performance.now() > deadline) {
      capped = true;
      return false;
    }
  }
  if (seen !== N) throw new Error(`expected ${N} text deltas, got ${seen}`);
  return true;
}

for (let i = 0; i < WARM; i++) await oneRun();
gc();
const baseline = process.memoryUsage().rss / MiB;
const peakBefore = process.resourceUsage().maxRSS / 1024;
let gcMs = 0;
let gcCount = 0;
const obs = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    gcMs += e.duration;
    gcCount++;
  }
});
obs.observe({ entryTypes: ['gc'] });

let inFlight = 0;
let maxInFlight = 0;
const finished = [];
const t0 = performance.now();
deadline = t0 + CAP * 1000;
const tracked = async () => {
  inFlight++;
  maxInFlight = Math.max(maxInFlight, inFlight);
  const done = await oneRun();
  inFlight--;
  if (done) finished.push(performance.now());
};
await Promise.all(Array.from({ length: C }, tracked));
const wall = (performance.now() - t0) / 1000;
await new Promise((r) => setTimeout(r, 50)); // let the observer deliver the last entries
for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
for (const e of obs.takeRecords()) {
  // entries not delivered yet (delivery starves while capped streams wind down)
  gcMs += e.duration;
  gcCount++;
}
obs.disconnect();
const peak = process.resourceUsage().maxRSS / 1024;
const out = {
  framework: 'mastra',
  hooks: HOOKS,
  hookSet: 'processInput, processOutputStream, processOutputStep',
  chunks: N,
  runs: C,
  finished: finished.length,
  maxInFlight,
  capSeconds: CAP,
  capped,
  wallSeconds: round(wall),
  runsPerSecond: round(finished.length / wall, 1),
  baselineRssMiB: round(baseline, 1),
  peakRssMiB: round(peak, 1),
  peakRssBeforeBatchMiB: round(peakBefore, 1),
  kibPerRun: round(((peak - baseline) * 1024) / C, 1),
  gcSeconds: round(gcMs / 1000),
  gcCollections: gcCount,
  meta: { node: process.version, peakRssMiB: round(peak, 1) },
};
if (finished.length) {
  out.firstFinishedSeconds = round((finished[0] - t0) / 1000);
  out.lastFinishedSeconds = round((finished[finished.length - 1] - t0) / 1000);
}
process.stdout.write(JSON.stringify(out, null, 2) + '\n');
process.exit(0);
