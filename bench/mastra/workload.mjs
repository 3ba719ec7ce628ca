#!/usr/bin/env node
// Mastra on the shared peer workload: 5 tool steps, then 200 streamed chunks.
// bench/run.py copies this file into the oracle folder (it imports the oracle's
// node_modules and lib/mock-model.mjs) and runs it with `node --expose-gc`.
//
// A stateless LanguageModelV2 (the step is the number of tool results in the prompt) whose
// doStream enqueues the parts of lib/mock-model.mjs's buildResponseParts into a
// ReadableStream. Hooks, each bumping a counter: (a) processInput, (b) processOutputStream,
// (c) processToolResult, (d) processInputStep (one input and one output processor).
// W warm-up runs per configuration, R rounds in rotated order, gc() before each timed run.
process.env.MASTRA_TELEMETRY_DISABLED = '1';
for (const k of ['log', 'info', 'warn', 'debug']) console[k] = () => {};

const { Agent } = await import('@mastra/core/agent');
const { createTool } = await import('@mastra/core/tools');
const { z } = await import('zod');
const { buildResponseParts } = await import('./lib/mock-model.mjs');

const env = (k, d) => (process.env[k] ? Number(process.env[k]) : d);
const N = env('N', 200);
const K = env('K', 5);
const R = env('R', 15);
const W = env('W', 3);
const gc = globalThis.gc ?? (() => {});
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const round = (x, d = 3) => Math.round(x * 10 ** d) / 10 ** d;
const TEXT = Array.from({ length: N }, (_, i) => `t${i} `);

function toolResultsIn(prompt) {
  let n = 0;
  for (const m of prompt) if (m.role === 'tool') for (const p of m.content) if (p.type === 'tool-result') n++;
  return n;
}

function workloadModel() {
  const model = {
    specificationVersion: 'v2',
    provider: 'mock',
    modelId: 'workload-model',
    supportedUrls: {},
    calls: 0,
    async doStream(options) {
      model.calls++;
      const done = toolResultsIn(options.prompt);
      const resp = done < K ? { toolCalls: [{ id: `call-${done}`, toolName: 'echo', args: { x: done } }] } : { text: TEXT };
      const parts = buildResponseParts(resp, done);
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const p of parts) controller.enqueue(p);
            controller.close();
          },
        }),
        request: { body: undefined },
        response: { headers: {} },
      };
    },
    async doGenerate() {
      throw new Error('streaming only');
    },
  };
  return model;
}

const echo = createTool({
  id: 'echo',
  description: 'Echo x back.',
  inputSchema: z.object({ x: z.number() }),
  execute: async (input) => String(input.x),
});

function runner(hooks) {
  const model = workloadModel();
  const counts = { input: 0, chunk: 0, tool: 0, step: 0 };
  const agent = new Agent({
    id: 'workload',
    name: 'workload',
    instructions: 'You are a test agent.',
    model,
    tools: { echo },
    ...(hooks
      ? {
          inputProcessors: [
            {
              id: 'in',
              processInput: async () => { counts.input++; },
              processInputStep: async () => { counts.step++; },
            },
          ],
          outputProcessors: [
            {
              id: 'out',
              processOutputStream: async ({ part }) => { counts.chunk++; return part; },
              processToolResult: async () => { counts.tool++; },
            },
          ],
        }
      : {}),
  });
  const info = {};
  const run = async () => {
    const calls0 = model.calls;
    const before = { ...counts };
    let events = 0;
    let texts = 0;
    let toolResults = 0;
    const out = await agent.stream('hi', { maxSteps: K + 1 });
    for await (const c of out.fullStream) {
      events++;
      if (c.type === 'text-delta') texts++;
      else if (c.type === 'tool-result') toolResults++;
    }
    if (model.calls - calls0 !== K + 1 || toolResults !== K || texts !== N)
      throw new Error(`calls/tool results/texts: ${model.calls - calls0}, ${toolResults}, ${texts}`);
    const delta = Object.fromEntries(Object.keys(counts).map((k) => [k, counts[k] - before[k]]));
    if (hooks && (delta.input !== 1 || delta.tool !== K || delta.step !== K + 1))
      throw new Error(`hook calls ${JSON.stringify(delta)}`);
    info.events = events;
    info.hookCalls = delta;
  };
  return [run, info];
}

async function timeIt(fn) {
  gc();
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

const [bare, bareInfo] = runner(false);
const [hooked, hookedInfo] = runner(true);
const rssSetup = process.resourceUsage().maxRSS / 1024;
const configs = { bare, hooks: hooked };
const names = Object.keys(configs);
for (const n of names) for (let i = 0; i < W; i++) await configs[n]();
const times = Object.fromEntries(names.map((n) => [n, []]));
for (let r = 0; r < R; r++) {
  const order = [...names.slice(r % names.length), ...names.slice(0, r % names.length)];
  for (const n of order) times[n].push(await timeIt(configs[n]));
}
const out = { framework: 'mastra', N, K, R, W };
for (const [name, info] of [['bare', bareInfo], ['hooks', hookedInfo]]) {
  const ms = median(times[name]);
  out[name] = {
    msPerRun: round(ms),
    usPerChunk: round((ms * 1000) / N, 2),
    min: round(Math.min(...times[name])),
    max: round(Math.max(...times[name])),
    events: info.events,
    hookCalls: name === 'hooks' ? info.hookCalls : null,
  };
}
out.hookOverheadMs = round(out.hooks.msPerRun - out.bare.msPerRun);
out.hookOverheadPairedMs = round(median(times.bare.map((b, i) => times.hooks[i] - b)));
out.rssAfterSetupMiB = round(rssSetup, 1);
out.missingHooks = [];
out.meta = {
  node: process.version,
  mastraCore: (await import('./lib/versions.mjs')).mastraCoreVersion(),
  peakRssMiB: round(process.resourceUsage().maxRSS / 1024, 1),
};
process.stdout.write(JSON.stringify(out, null, 2) + '\n');
