// Drives a server with the real @mastra/client-js, unchanged, and prints what the library
// parsed as one JSON object on stdout. Run by tests/server_clients/ with the Node 22 of
// node_modules/.bin/node:
//
//   node mastra-client.mjs PLAN_JSON      (or the JSON on standard input)
//
// PLAN_JSON is {"baseUrl": "...", "headers": {...}?, "steps": [STEP, ...]}; each step runs in
// order and adds one entry to "results" ({"ok": value} or {"error": {name, status, body,
// message}}). A step is {"op": NAME, ...arguments}; the ops are the client's own methods:
//
//   listAgents                                         client.listAgents()
//   agentDetails    {agentId}                          client.getAgent(id).details()
//   generate        {agentId, messages, options?}      client.getAgent(id).generate(...)
//   stream          {agentId, messages, options?,      client.getAgent(id).stream(...) read
//                    abortAfterChunks?, approve?}       with response.processDataStream();
//                                                      approve: {approved, reason?} answers
//                                                      each tool-call-approval chunk with
//                                                      agent.sendToolApproval(...)
//   listThreads     {params}                           client.listMemoryThreads(params)
//   createThread    {params}                           client.createMemoryThread(params)
//   getThread       {threadId, agentId}                client.getMemoryThread(...).get()
//   updateThread    {threadId, agentId, params}        ....update(params)
//   deleteThread    {threadId, agentId}                ....delete()
//   listMessages    {threadId, agentId, params?}       ....listMessages(params)
//   sendToolApproval {agentId, params}                 client.getAgent(id).sendToolApproval(params)
//
// A step's "headers" replace the plan's for that step (another credential).
import { MastraClient, MastraClientError } from '@mastra/client-js';
import { readSpec } from './input.mjs';

const plan = await readSpec();

function client(headers) {
  // retries: 0, so a 5xx fails at once instead of being retried with back-off
  return new MastraClient({ baseUrl: plan.baseUrl, headers: headers ?? plan.headers ?? {}, retries: 0 });
}

async function readStream(c, step) {
  const controller = new AbortController();
  const response = await c
    .getAgent(step.agentId)
    .stream(step.messages, { ...(step.options ?? {}), abortSignal: controller.signal });
  const chunks = [];
  const approvals = [];
  try {
    await response.processDataStream({
      onChunk: async (chunk) => {
        chunks.push(chunk);
        if (step.abortAfterChunks && chunks.length >= step.abortAfterChunks) controller.abort();
        if (step.approve && chunk.type === 'tool-call-approval') {
          // answered while the stream stays open, as the run waits for it
          approvals.push(
            await c.getAgent(step.agentId).sendToolApproval({
              toolCallId: chunk.payload.toolCallId,
              runId: chunk.runId,
              ...step.approve,
            }),
          );
        }
      },
    });
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  }
  const deltas = chunks.filter((c) => c.type === 'text-delta').map((c) => c.payload.text);
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    types: chunks.map((c) => c.type),
    text: deltas.join(''),
    chunks,
    approvals,
    aborted: controller.signal.aborted,
  };
}

const ops = {
  listAgents: (c) => c.listAgents(),
  agentDetails: (c, s) => c.getAgent(s.agentId).details(),
  generate: (c, s) => c.getAgent(s.agentId).generate(s.messages, s.options ?? {}),
  stream: readStream,
  listThreads: (c, s) => c.listMemoryThreads(s.params ?? {}),
  createThread: (c, s) => c.createMemoryThread(s.params),
  getThread: (c, s) => c.getMemoryThread({ threadId: s.threadId, agentId: s.agentId }).get(),
  updateThread: (c, s) => c.getMemoryThread({ threadId: s.threadId, agentId: s.agentId }).update(s.params),
  deleteThread: (c, s) => c.getMemoryThread({ threadId: s.threadId, agentId: s.agentId }).delete(),
  listMessages: (c, s) =>
    c.getMemoryThread({ threadId: s.threadId, agentId: s.agentId }).listMessages(s.params ?? {}),
  sendToolApproval: (c, s) => c.getAgent(s.agentId).sendToolApproval(s.params),
};

function describeError(error) {
  if (error instanceof MastraClientError) {
    return { name: error.name, status: error.status, body: error.body ?? null, message: error.message };
  }
  return { name: error?.name ?? 'Error', status: null, body: null, message: String(error?.message ?? error) };
}

const results = [];
for (const step of plan.steps) {
  const op = ops[step.op];
  if (!op) throw new Error(`unknown op ${step.op}`);
  try {
    results.push({ ok: await op(client(step.headers), step) });
  } catch (error) {
    results.push({ error: describeError(error) });
  }
}
process.stdout.write(JSON.stringify({ node: process.version, results }) + '\n');
