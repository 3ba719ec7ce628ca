// Drives POST /chat/:agentId with the real `ai` package the way a useChat page does:
// DefaultChatTransport sends the request and parses the UI message stream (validating every
// chunk against the package's schema), readUIMessageStream builds the assistant message from
// it. Prints what the page would have seen as one JSON object on stdout:
//
//   node chat.mjs SPEC_JSON               (or the JSON on standard input)
//
// SPEC_JSON: {"api": URL, "headers"?: {...}, "body"?: {...} (extra body fields, e.g. release),
// "chatId"?: "...", "messages": [UIMessage, ...], "abortAfterChunks"?: N, "approve"?: {"url":
// the send-tool-approval route, "approved": bool, "reason"?: "..."} to answer each
// tool-approval-request as the page's user would}
//
// Output: {"chunks": [every parsed UI message chunk], "snapshots": [the text of the assistant
// message after each update], "message": the final assistant message, "error": {...} | null
// (the request failed), "streamErrors": [what readUIMessageStream reported], "aborted": true
// when the page left after abortAfterChunks chunks}.
// "snapshots" is what a page renders over time: a text that appeared and was taken back would
// show up there.
import { DefaultChatTransport, readUIMessageStream } from 'ai';
import { readSpec } from './input.mjs';

const spec = await readSpec();
const transport = new DefaultChatTransport({
  api: spec.api,
  headers: spec.headers ?? {},
  body: spec.body ?? {},
});

const messageText = (message) =>
  message.parts
    .filter((p) => p.type === 'text')
    .map((p) => p.text)
    .join('');

const out = {
  chunks: [],
  snapshots: [],
  message: null,
  error: null,
  streamErrors: [],
  aborted: false,
  approvals: [],
};

// What a page does when it shows a tool-approval-request and the user decides: POST the
// decision to the server (docs/server.md, "Tools that need approval") while the stream waits.
async function approve(chunk) {
  const { url, headers, ...decision } = spec.approve;
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(headers ?? spec.headers ?? {}) },
    body: JSON.stringify({ toolCallId: chunk.approvalId, ...decision }),
  });
  return { status: response.status, body: await response.json() };
}
const controller = new AbortController();
try {
  const stream = await transport.sendMessages({
    chatId: spec.chatId ?? 'chat-1',
    messages: spec.messages,
    trigger: 'submit-message',
    messageId: undefined,
    abortSignal: controller.signal,
  });
  const recorded = stream.pipeThrough(
    new TransformStream({
      async transform(chunk, ctl) {
        out.chunks.push(chunk);
        if (spec.abortAfterChunks && out.chunks.length >= spec.abortAfterChunks) controller.abort();
        if (spec.approve && chunk.type === 'tool-approval-request') out.approvals.push(await approve(chunk));
        ctl.enqueue(chunk);
      },
    }),
  );
  const messages = readUIMessageStream({
    stream: recorded,
    onError: (error) => out.streamErrors.push(String(error?.message ?? error)),
  });
  for await (const message of messages) {
    out.snapshots.push(messageText(message));
    out.message = message;
  }
} catch (error) {
  out.error = {
    name: error?.name ?? 'Error',
    message: String(error?.message ?? error),
    statusCode: error?.statusCode ?? null,
    responseBody: error?.responseBody ?? null,
  };
}
out.aborted = controller.signal.aborted;
process.stdout.write(JSON.stringify(out) + '\n');
