// Records what Mastra's `agents` option streams: a supervisor delegates to a sub-agent
// (mock models, offline). `node probe-subagent.mjs [tripwire]` prints one JSON trace.
process.env.MASTRA_TELEMETRY_DISABLED = '1';
for (const k of ['log', 'info', 'warn', 'debug', 'trace']) console[k] = (...a) => console.error(...a);
const { Agent } = await import('@mastra/core/agent');
const { createMockModel } = await import('./lib/mock-model.mjs');
const { pkgVersion } = await import('./lib/versions.mjs');
const blockSub = process.argv[2] === 'tripwire';
const sub = new Agent({
  id: 'researcher', name: 'researcher', description: 'Finds facts.',
  instructions: 'x', model: createMockModel({ responses: [{ text: ['Paris ', 'is the capital.'] }] }),
  ...(blockSub ? { inputProcessors: [{ id: 'guard', processInput: ({ abort }) => abort('off topic') }] } : {}),
});
const parent = new Agent({
  id: 'boss', name: 'boss', instructions: 'y', agents: { researcher: sub },
  model: createMockModel({ responses: [
    { toolCalls: [{ id: 'c1', toolName: 'agent-researcher', args: { prompt: 'Capital of France?' } }] },
    { text: ['Done.'] } ] }),
});
const tools = await parent.listTools?.() ?? {};
const stream = await parent.stream('go');
const chunks = [];
for await (const c of stream.fullStream) {
  if (c.type === 'tool-output') {
    const inner = c.payload.output;
    chunks.push({ type: c.type, from: c.from, payloadKeys: Object.keys(c.payload).sort(),
      toolCallId: c.payload.toolCallId, toolName: c.payload.toolName,
      output: { type: inner.type, from: inner.from, text: inner.payload?.text, reason: inner.payload?.reason } });
  } else if (c.type === 'tool-result') {
    chunks.push({ type: c.type, toolName: c.payload.toolName, resultKeys: Object.keys(c.payload.result).sort(), text: c.payload.result.text });
  } else chunks.push({ type: c.type });
}
process.stdout.write(JSON.stringify({ scenario: blockSub ? 'sub-agent-tripwire' : 'sub-agent', versions: { '@mastra/core': pkgVersion('@mastra/core') }, chunks, text: await stream.text }, null, 1) + '\n');
