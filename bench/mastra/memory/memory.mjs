#!/usr/bin/env node
// The real Mastra memory (@mastra/memory on @mastra/libsql) on the sizes of bench/bench_memory.py:
// one agent.generate() against a scripted model (five text deltas) with no memory, with 100
// messages of history (lastMessages: 100), with working memory too, and with semantic recall
// on a lexical hash embedder (256 dimensions, as procession's HashEmbedder: Mastra ships no
// offline embedding model, so MiniLM is not compared). Each memory case has its own thread,
// filled with 100 messages before timing; each run loads them and stores its own turn.
//
//   node memory.mjs            one sitting of every case, one JSON line
//   node memory.mjs --serve    a sitting per line read on stdin ("sit"), one JSON line each,
//                              so bench/bench_memory.py can alternate sittings with procession
//
// R runs per case and sitting (env R, default 100), the cases in rotated order, gc() before
// each sitting when run with --expose-gc. Per case: the median of the sitting's runs, in ms,
// of wall time (under the case's name) and of the process's CPU time (under "<case>.cpu").
process.env.MASTRA_TELEMETRY_DISABLED = '1';
for (const k of ['log', 'info', 'warn', 'debug']) console[k] = () => {};

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const { Agent } = await import('@mastra/core/agent');
const { Memory } = await import('@mastra/memory');
const { LibSQLStore, LibSQLVector } = await import('@mastra/libsql');

const R = process.env.R ? Number(process.env.R) : 100;
const HISTORY = process.env.HISTORY ? Number(process.env.HISTORY) : 100;
const DIMENSIONS = 256;
const TEXT = ['Sure, ', 'here ', 'is ', 'the ', 'answer.'];
const gc = globalThis.gc ?? (() => {});
const out = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function parts(index) {
  const id = `txt-${index}`;
  return [
    { type: 'stream-start', warnings: [] },
    { type: 'response-metadata', id: `resp-${index}`, modelId: 'mock-model', timestamp: new Date(0) },
    { type: 'text-start', id },
    ...TEXT.map((delta) => ({ type: 'text-delta', id, delta })),
    { type: 'text-end', id },
    { type: 'finish', finishReason: 'stop', usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 } },
  ];
}

// A LanguageModelV2 that answers every call with the same five text deltas.
function scriptedModel() {
  let calls = 0;
  return {
    specificationVersion: 'v2',
    provider: 'mock',
    modelId: 'mock-model',
    supportedUrls: {},
    async doStream() {
      const list = parts(calls++);
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const p of list) controller.enqueue(p);
            controller.close();
          },
        }),
        request: { body: undefined },
        response: { headers: {} },
      };
    },
    async doGenerate() {
      calls++;
      return {
        content: [{ type: 'text', text: TEXT.join('') }],
        finishReason: 'stop',
        usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
        warnings: [],
        request: { body: undefined },
        response: { id: `resp-${calls}`, modelId: 'mock-model', timestamp: new Date(0), headers: {} },
      };
    },
  };
}

// Words hashed into a normalised vector: lexical, deterministic, about as cheap as
// procession's HashEmbedder (an EmbeddingModelV2).
function hashEmbedder() {
  const embed = (text) => {
    const v = new Array(DIMENSIONS).fill(0);
    for (const word of text.toLowerCase().match(/\w+/g) ?? []) {
      let h = 2166136261;
      for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
      v[(h >>> 0) % DIMENSIONS] += (h & 1) ? 1 : -1;
    }
    const norm = Math.hypot(...v) || 1;
    return v.map((x) => x / norm);
  };
  return {
    specificationVersion: 'v2',
    provider: 'hash',
    modelId: 'hash-256',
    maxEmbeddingsPerCall: 2048,
    supportsParallelCalls: true,
    async doEmbed({ values }) {
      return { embeddings: values.map(embed) };
    },
  };
}

function memoryFor(name, url) {
  const storage = new LibSQLStore({ id: `bench-${name}`, url });
  const options = { lastMessages: HISTORY, semanticRecall: false, workingMemory: { enabled: false } };
  if (name === 'history_working_memory') options.workingMemory = { enabled: true };
  if (name !== 'history_recall_hash') return new Memory({ storage, options });
  options.semanticRecall = { topK: 4, messageRange: 1, scope: 'resource' };
  const vector = new LibSQLVector({ id: `bench-${name}-vectors`, url });
  return new Memory({ storage, vector, embedder: hashEmbedder(), options });
}

const CASES = ['no_memory', 'history', 'history_working_memory', 'history_recall_hash'];

async function setup(folder) {
  const cases = {};
  for (const name of CASES) {
    const memory = name === 'no_memory' ? undefined : memoryFor(name, `file:${join(folder, `${name}.db`)}`);
    const agent = new Agent({
      id: `bench-${name}`,
      name: `bench-${name}`,
      instructions: 'Be brief.',
      model: scriptedModel(),
      ...(memory ? { memory } : {}),
    });
    const options = memory ? { memory: { thread: `thread-${name}`, resource: 'bench' } } : {};
    let counter = 0;
    const run = async () => {
      const result = await agent.generate(`question ${counter++} about the weather in Oslo`, options);
      if (result.text !== TEXT.join('')) throw new Error(`unexpected answer: ${result.text}`);
    };
    if (memory) for (let i = 0; i < HISTORY / 2; i++) await run(); // HISTORY messages stored
    for (let i = 0; i < 5; i++) await run(); // warm up
    cases[name] = run;
  }
  return cases;
}

let sittings = 0;
async function sitting(cases) {
  const order = CASES.slice(sittings % CASES.length).concat(CASES.slice(0, sittings % CASES.length));
  sittings++;
  gc();
  const result = {};
  for (const name of order) {
    const wall = [];
    const cpu = [];
    for (let i = 0; i < R; i++) {
      const started = performance.now();
      const used = process.cpuUsage();
      await cases[name]();
      wall.push(performance.now() - started);
      const spent = process.cpuUsage(used);
      cpu.push((spent.user + spent.system) / 1000);
    }
    result[name] = Math.round(median(wall) * 1000) / 1000;
    result[`${name}.cpu`] = Math.round(median(cpu) * 1000) / 1000;
  }
  return result;
}

const folder = mkdtempSync(join(tmpdir(), 'mastra-memory-'));
try {
  const cases = await setup(folder);
  if (process.argv.includes('--serve')) {
    out({ ready: true, history: HISTORY, rounds: R });
    for await (const line of createInterface({ input: process.stdin })) {
      if (line.trim() === 'sit') out(await sitting(cases));
      else if (line.trim() === 'quit') break;
    }
  } else {
    out(await sitting(cases));
  }
} finally {
  rmSync(folder, { recursive: true, force: true });
}
