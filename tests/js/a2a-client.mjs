// Drives an agent's A2A 0.3 endpoint with the real @mastra/client-js (getA2A), unchanged, and
// prints what the library returned as one JSON object on stdout. Run by
// tests/server_clients/test_a2a_mastra.py with the Node 22 of node_modules/.bin/node:
//
//   node a2a-client.mjs SPEC_JSON      (or the JSON on standard input)
//
// SPEC_JSON is {"baseUrl": "...", "agentId": "...", "headers": {...}?, "steps": [STEP, ...]};
// each step adds one entry to "results" ({"ok": value} or {"error": {name, status, code,
// message}}). The ops are the A2A client's own methods:
//
//   card                                  a2a.getAgentCard()
//   send     {text | data, contextId?, taskId?}   a2a.sendMessage({message})
//   stream   {text | data, contextId?, taskId?}   every event of a2a.sendMessageStream({message})
//   get      {taskId, useLast?}           a2a.getTask({id})
//   cancel   {taskId, useLast?}           a2a.cancelTask({id})
//
// "useLast": true takes the task id of the previous step's task, so a plan can answer or
// cancel the task it just started.
import { MastraClient, MastraClientError } from '@mastra/client-js';
import { readSpec } from './input.mjs';

const spec = await readSpec();
const client = new MastraClient({ baseUrl: spec.baseUrl, headers: spec.headers ?? {}, retries: 0 });
const a2a = client.getA2A(spec.agentId);
let lastTaskId = null;

function message(step) {
  const parts = step.data !== undefined ? [{ kind: 'data', data: step.data }] : [{ kind: 'text', text: step.text }];
  const out = { kind: 'message', role: 'user', messageId: crypto.randomUUID(), parts };
  if (step.contextId) out.contextId = step.contextId;
  const taskId = step.useLast ? lastTaskId : step.taskId;
  if (taskId) out.taskId = taskId;
  return out;
}

function remember(value) {
  const task = value?.result ?? value;
  if (task?.kind === 'task' && task.id) lastTaskId = task.id;
  return value;
}

const ops = {
  card: () => a2a.getAgentCard(),
  send: async (s) => remember(await a2a.sendMessage({ message: message(s) })),
  stream: async (s) => {
    const events = [];
    for await (const event of a2a.sendMessageStream({ message: message(s) })) {
      events.push(event);
      remember(event);
    }
    return events;
  },
  get: (s) => a2a.getTask({ id: s.useLast ? lastTaskId : s.taskId }),
  cancel: (s) => a2a.cancelTask({ id: s.useLast ? lastTaskId : s.taskId }),
};

function describeError(error) {
  return {
    name: error?.name ?? 'Error',
    status: error instanceof MastraClientError ? error.status : null,
    code: error?.code ?? null,
    message: String(error?.message ?? error),
  };
}

const results = [];
for (const step of spec.steps) {
  const op = ops[step.op];
  if (!op) throw new Error(`unknown op ${step.op}`);
  try {
    results.push({ ok: await op(step) });
  } catch (error) {
    results.push({ error: describeError(error) });
  }
}
process.stdout.write(JSON.stringify({ node: process.version, results }) + '\n');
