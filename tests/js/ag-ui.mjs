// Drives POST /ag-ui/:agentId with the real @ag-ui/client HttpAgent, the way a CopilotKit or
// AG-UI front end does: each turn adds a user message and calls runAgent, which posts the
// whole RunAgentInput, parses the SSE stream, verifies the event order (it throws on an
// event out of place) and applies the events to the agent's messages and state. Prints what
// the front end ended with as one JSON object on stdout:
//
//   node ag-ui.mjs SPEC_JSON               (or the JSON on standard input)
//
// SPEC_JSON: {"url": URL, "headers"?: {...}, "threadId"?: "...", "turns": ["text", ...],
// "tools"?: [Tool, ...] (front-end tools), "state"?: {...}, "forwardedProps"?: {...}}
//
// Output: {"turns": [{"events": [every event the subscriber saw], "newMessages": [...],
// "error": {...} | null}], "messages": the agent's messages at the end, "state": its state}.
import { HttpAgent, randomUUID } from '@ag-ui/client';
import { readSpec } from './input.mjs';

const spec = await readSpec();
const agent = new HttpAgent({
  url: spec.url,
  headers: spec.headers ?? {},
  threadId: spec.threadId ?? randomUUID(),
  initialState: spec.state ?? {},
});

const out = { turns: [], messages: [], state: null };
for (const text of spec.turns) {
  const turn = { events: [], newMessages: [], error: null };
  agent.addMessage({ id: randomUUID(), role: 'user', content: text });
  try {
    const result = await agent.runAgent(
      { tools: spec.tools ?? [], forwardedProps: spec.forwardedProps ?? {} },
      { onEvent: ({ event }) => void turn.events.push(event) },
    );
    turn.newMessages = result.newMessages;
  } catch (error) {
    turn.error = {
      name: error?.name ?? 'Error',
      message: String(error?.message ?? error),
      status: error?.status ?? null,
      payload: error?.payload ?? null,
    };
  }
  out.turns.push(turn);
}
out.messages = agent.messages;
out.state = agent.state;
process.stdout.write(JSON.stringify(out) + '\n');
