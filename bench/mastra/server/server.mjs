#!/usr/bin/env node
// Mastra's own server for bench/bench_server.py: @mastra/core served by @mastra/hono on
// @hono/node-server, with @mastra/ai-sdk's chat route, one agent on a scripted model and the
// three processors the procession side has (a pass-through processInput, processOutputStream
// and processOutputStep). Offline: the model is a scripted AI SDK LanguageModelV2 object.
//
//   node server.mjs PORT CHUNKS     -> prints "listening PORT" on stdout once it accepts requests
//
// Routes used by the bench: POST /api/agents/bench/stream (Mastra's chunk stream, server-sent
// events) and POST /chat/bench (the AI SDK UI message stream).
process.env.MASTRA_TELEMETRY_DISABLED = '1';
for (const k of ['log', 'info', 'warn', 'debug']) console[k] = () => {};

const { serve } = await import('@hono/node-server');
const { Hono } = await import('hono');
const { Mastra } = await import('@mastra/core');
const { Agent } = await import('@mastra/core/agent');
const { MastraServer } = await import('@mastra/hono');
const { chatRoute } = await import('@mastra/ai-sdk');

const port = Number(process.argv[2] ?? 4111);
const chunks = Number(process.argv[3] ?? 7);
const deltas = Array.from({ length: chunks }, (_, i) => `w${i} `);

// The same reply procession's scripted model streams: metadata, one text block of CHUNKS
// deltas, then finish. Parts are enqueued at once, as the procession model yields them
// without waiting.
function scriptedModel() {
  let calls = 0;
  const usage = { inputTokens: 10, outputTokens: chunks, totalTokens: 10 + chunks };
  return {
    specificationVersion: 'v2',
    provider: 'scripted',
    modelId: 'scripted-model',
    supportedUrls: {},
    async doStream() {
      const call = calls++;
      const id = `txt-${call}`;
      const parts = [
        { type: 'stream-start', warnings: [] },
        { type: 'response-metadata', id: `resp-${call}`, modelId: 'scripted-model', timestamp: new Date(0) },
        { type: 'text-start', id },
        ...deltas.map((delta) => ({ type: 'text-delta', id, delta })),
        { type: 'text-end', id },
        { type: 'finish', finishReason: 'stop', usage },
      ];
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const p of parts) controller.enqueue(p);
            controller.close();
          },
        }),
        request: {},
        response: { headers: {} },
      };
    },
    async doGenerate() {
      calls++;
      return {
        content: [{ type: 'text', text: deltas.join('') }],
        finishReason: 'stop',
        usage,
        warnings: [],
        response: { id: 'resp', modelId: 'scripted-model', timestamp: new Date(0) },
      };
    },
  };
}

const agent = new Agent({
  id: 'bench',
  name: 'bench',
  instructions: 'You are a test agent.',
  model: scriptedModel(),
  inputProcessors: [{ id: 'in', processInput: async ({ messages }) => messages }],
  outputProcessors: [
    { id: 'stream', processOutputStream: async ({ part }) => part },
    { id: 'step', processOutputStep: async ({ messageList }) => messageList },
  ],
});

const mastra = new Mastra({
  agents: { bench: agent },
  logger: false,
  server: { apiRoutes: [chatRoute({ path: '/chat/:agentId' })] },
});
const app = new Hono();
const server = new MastraServer({ app, mastra });
await server.init();

serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, (info) => {
  process.stdout.write(`listening ${info.port}\n`);
});
