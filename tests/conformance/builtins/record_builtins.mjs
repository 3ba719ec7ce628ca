// Records what Mastra's real built-in processors do to the inputs in cases/*.json, each case
// run through a real @mastra/core Agent with the oracle's scripted mock model.
//
//   tests/conformance/builtins/record.sh ORACLE_COPY
//
// This file is copied into the oracle copy (so '@mastra/core' resolves there) and run as
//   node record_builtins.mjs CASES.json > EXPECTED.json
// Library logging goes to stderr; stdout holds only the JSON.
import fs from 'node:fs';

process.env.MASTRA_TELEMETRY_DISABLED = '1';
for (const k of ['log', 'info', 'warn', 'debug', 'trace']) console[k] = (...a) => console.error(...a);

const { Agent } = await import('@mastra/core/agent');
const { createTool } = await import('@mastra/core/tools');
const P = await import('@mastra/core/processors');
const { z } = await import('zod');
const { createMockModel } = await import('./lib/mock-model.mjs');

const words = (text) => (text ?? '').split(/\s+/).filter(Boolean).length;

function buildProcessor(spec) {
  const o = spec.options ?? {};
  switch (spec.kind) {
    case 'UnicodeNormalizer':
      return new P.UnicodeNormalizer(o);
    case 'TokenLimiter': {
      const limiter = new P.TokenLimiterProcessor(o);
      if (spec.wordCounter) limiter.countTokens = words; // the same counter on both sides
      return limiter;
    }
    case 'ToolCallFilter':
      return new P.ToolCallFilter(o);
    case 'PIIDetector':
      return new P.PIIDetector({
        model: createMockModel({ responses: [{ text: ['{"categories":null,"detections":null,"redacted_content":null}'] }] }),
        ...o,
      });
    case 'ToolSearch':
      return new P.ToolSearchProcessor({ ...o, tools: buildTools(spec.catalog ?? {}) });
    default:
      throw new Error(`unknown built-in ${spec.kind}`);
  }
}

function buildTools(defs, seen) {
  const tools = {};
  for (const [name, def] of Object.entries(defs)) {
    const config = {
      id: name,
      description: def.description ?? `Test tool ${name}`,
      inputSchema: z.looseObject({}),
      execute: async () => structuredClone(def.result ?? { ok: true }),
    };
    if (def.modelOutput === 'json') config.toModelOutput = (output) => ({ type: 'json', value: output });
    if (def.modelOutput === 'text') config.toModelOutput = (output) => ({ type: 'text', value: String(output) });
    tools[name] = createTool(config);
  }
  return tools;
}

function partSummary(part) {
  if (typeof part === 'string') return part;
  if (part.type === 'text') return part.text;
  if (part.type === 'tool-call') return { call: part.toolName };
  if (part.type === 'tool-result') return { result: part.toolName };
  return { type: part.type };
}

function promptSummary(prompt) {
  return prompt.map((m) => ({
    role: m.role,
    content: typeof m.content === 'string' ? [m.content] : m.content.map(partSummary),
  }));
}

async function runCase(c) {
  const calls = [];
  const model = createMockModel({
    responses: c.model?.responses ?? [{ text: ['ok'] }],
    onCall: ({ options }) => calls.push({
      prompt: promptSummary(options.prompt),
      tools: (options.tools ?? []).map((t) => t.name).sort(),
    }),
  });
  const processor = buildProcessor(c.processor);
  const agent = new Agent({
    id: 'builtin-agent',
    name: 'builtin-agent',
    instructions: c.instructions ?? 'You are a test agent.',
    model,
    tools: buildTools(c.tools ?? {}),
    ...(c.lane === 'output' ? { outputProcessors: [processor] } : { inputProcessors: [processor] }),
  });
  const out = { name: c.name };
  if (c.attributes) {
    out.attributes = Object.fromEntries(c.attributes.map((a) => [a, processor[a] ?? null]));
  }
  const stream = await agent.stream(c.input ?? 'Hello', { maxSteps: c.maxSteps ?? 5 });
  const data = [];
  const toolResults = [];
  let tripwire = null;
  let streamed = '';
  for await (const chunk of stream.fullStream) {
    if (chunk.type === 'text-delta') streamed += chunk.payload.text;
    if (chunk.type.startsWith('data-')) data.push({ type: chunk.type, data: chunk.data });
    if (chunk.type === 'tool-result') toolResults.push({ toolName: chunk.payload.toolName, result: chunk.payload.result });
    if (chunk.type === 'tripwire') tripwire = chunk.payload?.reason ?? chunk.payload?.tripwireReason ?? null;
  }
  out.text = await stream.text;
  out.streamed = streamed;
  out.calls = calls;
  out.data = data;
  out.toolResults = toolResults;
  out.tripwire = tripwire;
  return out;
}

const file = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const { pkgVersion } = await import('./lib/versions.mjs');
const results = [];
for (const c of file.cases) {
  try {
    results.push(await runCase(c));
  } catch (error) {
    results.push({ name: c.name, threw: String(error?.message ?? error) });
  }
}
process.stdout.write(JSON.stringify({ builtin: file.builtin, versions: { '@mastra/core': pkgVersion('@mastra/core') }, results }, null, 1) + '\n');
