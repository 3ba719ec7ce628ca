// procession Studio: one hand-written module, no framework, no build step.
//
// It reads the API the app serves: /api/agents, the live chunk stream of
// /api/agents/{id}/stream (with "inspect": true, so processors' notes come along),
// /api/memory for threads and messages, and /api/studio for runs and their timelines.
// Everything a model, a tool or a processor produced is put on the page as text
// (textContent), never as HTML.

const KEY = "procession.studio.credential";
const RESOURCE = "procession.studio.resource";
const NOTE = "data-procession-hook";
const THREAD = "procession.studio.thread."; // + agent id: the chat's thread, kept over a reload
const ASKED = "procession.studio.asked"; // run id -> what this tab asked it (runs that stored nothing)

const state = {
  session: null,
  agents: {},
  agentId: null,
  threads: {}, // agent id -> the chat's thread id
  history: {}, // agent id -> [{role, content}] for agents without memory
  controller: null,
  runId: null,
};

const $ = (id) => document.getElementById(id);

// Where the app is mounted: this module is served at <root>/studio/assets/studio.js, so
// the API is reached relative to it, whatever prefix the app sits under (Mount("/ai", ...)).
const ROOT = new URL("../../", import.meta.url);

function at(path) {
  return new URL(path.replace(/^\//, ""), ROOT).href;
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function ms(value) {
  if (value === null || value === undefined) return "";
  return value >= 100 ? `${value.toFixed(0)} ms` : `${value.toFixed(value >= 1 ? 1 : 3)} ms`;
}

function newId(prefix) {
  const bytes = new Uint8Array(6);
  crypto.getRandomValues(bytes);
  return prefix + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// -- talking to the server --------------------------------------------------------------

class SignInNeeded extends Error {}

function headers(json) {
  const out = { accept: "application/json" };
  if (json) out["content-type"] = "application/json";
  const credential = sessionStorage.getItem(KEY);
  if (credential) out.authorization = `Bearer ${credential}`;
  return out;
}

async function failure(response) {
  let message = `${response.status} ${response.statusText}`;
  try {
    const body = await response.json();
    if (body && body.error) message = body.error;
  } catch (_) {
    // not JSON: keep the status line
  }
  if (response.status === 401) {
    showSignIn(message);
    return new SignInNeeded(message);
  }
  const error = new Error(message);
  error.status = response.status;
  return error;
}

async function api(path, init = {}) {
  const response = await fetch(at(path), { ...init, headers: headers(Boolean(init.body)) });
  if (!response.ok) throw await failure(response);
  return response.json();
}

function resource() {
  if (state.session && state.session.auth) return null; // the credential decides
  return sessionStorage.getItem(RESOURCE) || null;
}

function query(params) {
  const out = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== null && value !== undefined && value !== "") out.set(key, value);
  }
  const text = out.toString();
  return text ? `?${text}` : "";
}

// -- signing in ---------------------------------------------------------------------------

function showSignIn(message) {
  $("app").hidden = true;
  $("sign-in").hidden = false;
  $("sign-in-error").textContent = sessionStorage.getItem(KEY) ? message : "";
  $("credential").focus();
}

$("sign-in-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const value = $("credential").value.trim();
  if (!value) return;
  sessionStorage.setItem(KEY, value);
  $("credential").value = "";
  boot();
});

$("sign-out").addEventListener("click", () => {
  sessionStorage.removeItem(KEY);
  location.reload();
});

// -- agents ---------------------------------------------------------------------------------

async function boot() {
  try {
    state.session = await api("/api/studio/session");
    state.agents = await api("/api/agents");
  } catch (error) {
    if (!(error instanceof SignInNeeded)) showSignIn(error.message);
    return;
  }
  const session = state.session;
  $("sign-in").hidden = true;
  $("app").hidden = false;
  $("version").textContent = `v${session.version}`;
  $("who").hidden = !session.auth;
  $("who").textContent = session.auth ? `signed in as ${session.resourceId}` : "";
  $("sign-out").hidden = !session.auth;
  $("resource-box").hidden = session.auth;
  $("resource").value = sessionStorage.getItem(RESOURCE) || "";
  $("inspect-hint").textContent = session.inspect
    ? ""
    : "processor notes are off on this server: create_app(allow_inspect=True) or procession serve --allow-inspect";
  renderAgents();
  const hash = new URLSearchParams(location.hash.slice(1));
  const wanted = hash.get("agent");
  const ids = Object.keys(state.agents);
  const id = ids.includes(wanted) ? wanted : ids[0];
  if (id && hash.get("thread")) state.threads[id] = hash.get("thread");
  selectAgent(id);
}

function renderAgents() {
  const list = $("agent-list");
  list.replaceChildren();
  for (const [id, agent] of Object.entries(state.agents)) {
    const item = el("li", "", agent.name || id);
    item.dataset.agent = id;
    item.append(el("span", "id", id));
    item.addEventListener("click", () => selectAgent(id));
    list.append(item);
  }
}

function remember() {
  const id = state.agentId;
  const agent = state.agents[id];
  const params = new URLSearchParams({ agent: id });
  if (agent.supportsMemory) {
    params.set("thread", state.threads[id]);
    sessionStorage.setItem(THREAD + id, state.threads[id]);
  }
  history.replaceState(null, "", `#${params}`);
}

function selectAgent(id) {
  if (!id) return;
  state.agentId = id;
  for (const item of $("agent-list").children) {
    item.setAttribute("aria-current", String(item.dataset.agent === id));
  }
  const agent = state.agents[id];
  const head = $("agent-head");
  head.replaceChildren(el("h1", "", agent.name || id));
  const model = [agent.provider, agent.modelId].filter(Boolean).join("/");
  head.append(el("span", "meta", model));
  const lanes = [
    ["in", agent.inputProcessors || []],
    ["out", agent.outputProcessors || []],
  ];
  for (const [lane, processors] of lanes) {
    for (const processor of processors) head.append(el("span", "chip", `${lane}: ${processor.id}`));
  }
  for (const tool of Object.keys(agent.tools || {})) head.append(el("span", "chip", `tool: ${tool}`));
  if (!state.threads[id]) state.threads[id] = sessionStorage.getItem(THREAD + id) || newId("studio-");
  $("thread").value = state.threads[id];
  $("thread").parentElement.hidden = !agent.supportsMemory;
  $("new-thread").hidden = !agent.supportsMemory;
  $("transcript").replaceChildren();
  state.history[id] = [];
  remember();
  if (agent.supportsMemory) loadTranscript(id, state.threads[id]);
  const tab = document.querySelector('.tabs [aria-selected="true"]').dataset.tab;
  showTab(tab);
}

// -- tabs -------------------------------------------------------------------------------------

function showTab(name) {
  for (const button of document.querySelectorAll(".tabs button")) {
    button.setAttribute("aria-selected", String(button.dataset.tab === name));
  }
  for (const panel of ["chat", "runs", "threads"]) $(`panel-${panel}`).hidden = panel !== name;
  if (name === "runs") loadRuns();
  if (name === "threads") loadThreads();
}

for (const button of document.querySelectorAll(".tabs button")) {
  button.addEventListener("click", () => showTab(button.dataset.tab));
}

$("resource").addEventListener("change", () => {
  const value = $("resource").value.trim();
  if (value) sessionStorage.setItem(RESOURCE, value);
  else sessionStorage.removeItem(RESOURCE);
});

// -- the chat ---------------------------------------------------------------------------------

$("thread").addEventListener("change", () => {
  state.threads[state.agentId] = $("thread").value.trim() || newId("studio-");
  $("thread").value = state.threads[state.agentId];
  $("transcript").replaceChildren();
  remember();
  loadTranscript(state.agentId, state.threads[state.agentId]);
});

$("new-thread").addEventListener("click", () => {
  state.threads[state.agentId] = newId("studio-");
  $("thread").value = state.threads[state.agentId];
  $("transcript").replaceChildren();
  remember();
});

// The thread's stored messages, as the transcript (after a reload, or on another thread).
async function loadTranscript(agentId, threadId) {
  const params = query({ agentId, resourceId: resource(), perPage: "false" });
  let found;
  try {
    found = await api(`/api/memory/threads/${encodeURIComponent(threadId)}/messages${params}`);
  } catch (error) {
    return; // a thread not stored yet (404), or not the caller's: an empty transcript
  }
  if (state.agentId !== agentId || state.threads[agentId] !== threadId) return;
  const transcript = $("transcript");
  const earlier = document.createDocumentFragment();
  for (const message of found.messages) {
    const turn = storedTurn(agentId, message);
    if (turn) earlier.append(turn);
  }
  transcript.prepend(earlier);
  transcript.scrollTop = transcript.scrollHeight;
}

function storedTurn(agentId, message) {
  if (message.role !== "user" && message.role !== "assistant") return null;
  const turn = el("div", `turn ${message.role} stored-turn`);
  if (message.role === "assistant") turn.append(el("span", "who-label", state.agents[agentId].name || agentId));
  const bubble = el("div", "bubble");
  const content = message.content || {};
  if (typeof content === "string") bubble.append(el("div", "text", content));
  for (const part of Array.isArray(content.parts) ? content.parts : []) {
    if (part.type === "text") bubble.append(el("div", "text", part.text));
    else if (part.type === "tool-invocation") {
      const call = part.toolInvocation || {};
      const tool = el("div", "tool", `→ ${call.toolName}(${JSON.stringify(call.args || {})})`);
      if (call.result !== undefined) tool.append(el("div", "res", `← ${JSON.stringify(call.result)}`));
      bubble.append(tool);
    }
  }
  if (!bubble.childElementCount) return null;
  turn.append(bubble);
  return turn;
}

function rememberAsked(runId, text) {
  let asked = {};
  try {
    asked = JSON.parse(sessionStorage.getItem(ASKED) || "{}");
  } catch (_) {
    // start again
  }
  asked[runId] = text.length > 120 ? `${text.slice(0, 119)}…` : text;
  const ids = Object.keys(asked);
  for (const old of ids.slice(0, Math.max(0, ids.length - 200))) delete asked[old];
  sessionStorage.setItem(ASKED, JSON.stringify(asked));
}

function askedHere(runId) {
  try {
    return JSON.parse(sessionStorage.getItem(ASKED) || "{}")[runId] || null;
  } catch (_) {
    return null;
  }
}

$("show-kept").addEventListener("change", () => {
  $("transcript").classList.toggle("hide-kept", !$("show-kept").checked);
});
$("transcript").classList.add("hide-kept");

$("prompt").addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey) {
    event.preventDefault();
    $("composer").requestSubmit();
  }
});

$("composer").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = $("prompt").value.trim();
  if (!text || state.controller) return;
  $("prompt").value = "";
  send(text);
});

$("stop").addEventListener("click", () => state.controller && state.controller.abort());

function requestBody(agentId, text) {
  const agent = state.agents[agentId];
  const body = { release: "live" };
  if (state.session.inspect) body.inspect = true;
  const who = resource();
  if (agent.supportsMemory) {
    body.messages = text;
    body.memory = { thread: state.threads[agentId] };
    if (who) body.memory.resource = who;
  } else {
    body.messages = [...state.history[agentId], { role: "user", content: text }];
    if (who) body.resourceId = who;
  }
  return body;
}

async function send(text) {
  const agentId = state.agentId;
  const transcript = $("transcript");
  const user = el("div", "turn user");
  user.append(el("div", "bubble", text));
  transcript.append(user);
  const turn = new Turn(agentId);
  transcript.append(turn.root);
  const controller = new AbortController();
  state.controller = controller;
  $("send").disabled = true;
  $("stop").hidden = false;
  try {
    const response = await fetch(at(`/api/agents/${encodeURIComponent(agentId)}/stream`), {
      method: "POST",
      headers: headers(true),
      body: JSON.stringify(requestBody(agentId, text)),
      signal: controller.signal,
    });
    if (!response.ok) throw await failure(response);
    await readEvents(response.body, (chunk) => {
      turn.take(chunk);
      transcript.scrollTop = transcript.scrollHeight;
    });
    if (turn.runId) rememberAsked(turn.runId, text);
    if (!turn.blocked && turn.accepted.trim()) {
      state.history[agentId].push({ role: "user", content: text });
      state.history[agentId].push({ role: "assistant", content: turn.accepted });
    }
  } catch (error) {
    if (error.name === "AbortError") turn.banner("error", "Stopped", "the run was cancelled");
    else if (!(error instanceof SignInNeeded)) turn.banner("error", "Failed", error.message);
  } finally {
    turn.done();
    state.controller = null;
    $("send").disabled = false;
    $("stop").hidden = true;
  }
}

async function readEvents(body, onChunk) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let cut = buffer.indexOf("\n\n");
    while (cut >= 0) {
      const event = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const data = event
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trimStart())
        .join("\n");
      if (data && data !== "[DONE]") onChunk(JSON.parse(data));
      cut = buffer.indexOf("\n\n");
    }
  }
}

// Where a stream note's change is: the stream (text, reasoning, a tool call's arguments),
// the character it starts at and how many it covered. Never the text that was removed.
function where(data) {
  const stream = data.stream && data.stream !== "text" ? `${data.stream} ` : "";
  const count = data.length === 1 ? "1 char" : `${data.length} chars`;
  return `${stream}at ${data.start} (${count})`;
}

class Turn {
  constructor(agentId) {
    this.agentId = agentId;
    this.root = el("div", "turn assistant");
    this.root.append(el("span", "who-label", state.agents[agentId].name || agentId));
    this.bubble = el("div", "bubble");
    this.root.append(this.bubble);
    this.notes = el("div", "notes");
    this.bubble.append(this.notes);
    this.step = null;
    this.stepNumber = 0;
    this.attempt = 0;
    this.accepted = "";
    this.blocked = false;
    this.tools = {};
    this.footer = el("div", "footer");
  }

  take(chunk) {
    if (chunk.type === NOTE) return this.note(chunk.data || {});
    if (chunk.type.startsWith("data-")) return this.data(chunk);
    const handler = HANDLERS[chunk.type];
    if (handler) handler(this, chunk.payload || {}, chunk);
  }

  currentNotes() {
    if (this.step) return this.step.notes;
    if (this.bubble.lastElementChild !== this.notes) {
      this.notes = el("div", "notes");
      this.bubble.append(this.notes);
    }
    return this.notes;
  }

  startStep() {
    const root = el("div", "step");
    const label = this.attempt ? `step ${this.stepNumber} · retry ${this.attempt}` : `step ${this.stepNumber}`;
    root.append(el("div", "step-label", label));
    const body = el("div", "step-body");
    const notes = el("div", "notes");
    root.append(body, notes);
    this.bubble.append(root);
    this.step = { root, body, notes, texts: {}, text: "" };
  }

  text(payload, kind) {
    if (!this.step) this.startStep();
    const id = `${kind}:${payload.id || ""}`;
    let node = this.step.texts[id];
    if (!node) {
      node = el("div", kind);
      this.step.texts[id] = node;
      this.step.body.append(node);
    }
    node.textContent += payload.text || "";
    if (kind === "text") this.step.text += payload.text || "";
  }

  finishStep(payload) {
    const result = payload.stepResult || {};
    if (!this.step) this.startStep();
    if (result.reason === "retry") {
      this.step.root.classList.add("rejected");
      this.banner("retry", `Retry asked by ${result.retryProcessorId || "a processor"}`, result.retryReason, this.step.root);
      this.attempt += 1;
    } else {
      this.accepted += this.step.text;
      this.stepNumber += 1;
      this.attempt = 0;
    }
    this.step = null;
  }

  note(data) {
    const action = data.action || "kept";
    const row = el("div", `note ${action}`);
    row.dataset.processor = data.processorId || "";
    row.dataset.hook = data.hook || "";
    row.append(el("span", "action", action), el("span", "proc", data.processorId), el("span", "hook", data.hook));
    if (data.chunkType) row.append(el("span", "hook", `<${data.chunkType}>`));
    if (data.type) row.append(el("span", "kind", data.type));
    if (data.start !== undefined) row.append(el("span", "where", where(data)));
    if (data.after !== undefined) row.append(el("span", "arrow", "→"), el("span", "after", JSON.stringify(data.after)));
    if (data.durationMs !== undefined) row.append(el("span", "ms", ms(data.durationMs)));
    this.currentNotes().append(row);
  }

  data(chunk) {
    const row = el("div", "note data");
    row.dataset.type = chunk.type;
    row.append(el("span", "action", "data"), el("span", "proc", chunk.type));
    if (chunk.transient) row.append(el("span", "hook", "transient"));
    row.append(el("code", "", JSON.stringify(chunk.data)));
    this.currentNotes().append(row);
  }

  tool(payload, kind) {
    if (!this.step) this.startStep();
    const id = payload.toolCallId || newId("call-");
    let box = this.tools[id];
    if (!box) {
      box = el("div", "tool");
      box.dataset.call = id;
      box.append(el("div", "", `→ ${payload.toolName}(${JSON.stringify(payload.args || {})})`));
      this.tools[id] = box;
      this.step.body.append(box);
    }
    if (kind === "result") box.append(el("div", "res", `← ${JSON.stringify(payload.result)}`));
    if (kind === "error") box.append(el("div", "err", `✗ ${errorText(payload.error)}`));
    if (kind === "denied") box.append(el("div", "err", "✗ declined"));
    if (kind === "approval") this.approval(box, payload);
  }

  approval(box, payload) {
    const row = el("div", "approve");
    const answer = async (approved) => {
      row.replaceChildren(el("span", "hint", approved ? "approved" : "declined"));
      await api(`/api/agents/${encodeURIComponent(this.agentId)}/send-tool-approval`, {
        method: "POST",
        body: JSON.stringify({ toolCallId: payload.toolCallId, approved, runId: this.runId }),
      });
    };
    const yes = el("button", "", "Approve");
    const no = el("button", "quiet", "Decline");
    yes.addEventListener("click", () => answer(true));
    no.addEventListener("click", () => answer(false));
    row.append(yes, no);
    box.append(row);
  }

  banner(kind, title, detail, where) {
    const box = el("div", `banner ${kind}`);
    box.append(el("b", "", title));
    if (detail) box.append(document.createTextNode(`: ${detail}`));
    (where || this.bubble).append(box);
    return box;
  }

  finish(payload) {
    const usage = (payload.output && payload.output.usage) || payload.usage || {};
    const reason = (payload.stepResult && payload.stepResult.reason) || payload.finishReason;
    if (reason) this.footer.append(el("span", "", `finish: ${reason}`));
    if (usage.totalTokens !== undefined) this.footer.append(el("span", "", `${usage.totalTokens} tokens`));
  }

  done() {
    if (this.runId) {
      this.footer.append(el("span", "mono", this.runId));
      const link = el("a", "", "timeline →");
      link.dataset.run = this.runId;
      link.addEventListener("click", () => {
        showTab("runs");
        openRun(this.runId, true);
      });
      if (state.session.traces) this.footer.append(link);
    }
    this.bubble.append(this.footer);
  }
}

function errorText(error) {
  if (!error) return "error";
  if (typeof error === "string") return error;
  return [error.name, error.message].filter(Boolean).join(": ") || JSON.stringify(error);
}

const HANDLERS = {
  start: (turn, payload, chunk) => {
    turn.runId = chunk.runId;
  },
  "step-start": (turn) => turn.startStep(),
  "text-delta": (turn, payload) => turn.text(payload, "text"),
  "reasoning-delta": (turn, payload) => turn.text(payload, "reasoning"),
  "tool-call": (turn, payload) => turn.tool(payload, "call"),
  "tool-result": (turn, payload) => turn.tool(payload, "result"),
  "tool-error": (turn, payload) => turn.tool(payload, "error"),
  "tool-call-approval": (turn, payload) => turn.tool(payload, "approval"),
  "tool-output-denied": (turn, payload) => turn.tool(payload, "denied"),
  "step-finish": (turn, payload) => turn.finishStep(payload),
  tripwire: (turn, payload) => {
    turn.blocked = true;
    const retried = payload.retry ? " (asked for a retry, none left)" : "";
    turn.banner("tripwire", `Blocked by ${payload.processorId || "a processor"}`, `${payload.reason}${retried}`);
  },
  error: (turn, payload) => {
    turn.blocked = true;
    const detail = payload.error ? errorText(payload.error) : errorText(payload);
    turn.banner("error", "Error", detail);
  },
  abort: (turn) => {
    turn.blocked = true;
    turn.banner("error", "Aborted", "the run was cancelled");
  },
  finish: (turn, payload) => turn.finish(payload),
};

// -- runs and timelines ------------------------------------------------------------------------

async function loadRuns() {
  const body = $("runs").tBodies[0];
  if (!state.session.traces) {
    body.replaceChildren();
    $("runs-hint").textContent =
      "This server keeps no traces: create_app(traces=trace_store(...)), or procession serve --traces";
    return;
  }
  $("runs-hint").textContent = "";
  let found;
  try {
    found = await api(`/api/studio/runs${query({ agentId: state.agentId, resourceId: resource(), limit: 50 })}`);
  } catch (error) {
    $("runs-hint").textContent = error.message;
    return;
  }
  body.replaceChildren();
  for (const run of found.runs) {
    const row = el("tr");
    row.dataset.run = run.runId;
    row.setAttribute("aria-current", String(run.runId === state.runId));
    const outcome = el("td");
    outcome.append(el("span", `outcome ${run.outcome}`, run.outcome));
    const asked = run.asked || askedHere(run.runId);
    const question = el("td", "asked", asked || "—");
    if (asked) question.title = asked;
    row.append(
      el("td", "", new Date(run.start).toLocaleTimeString()),
      question,
      outcome,
      el("td", "", ms(run.durationMs)),
      el("td", "", run.threadId || "—"),
    );
    row.title = run.runId;
    row.addEventListener("click", () => openRun(run.runId, false));
    body.append(row);
  }
  if (!found.runs.length) $("runs-hint").textContent = "No runs of this agent yet.";
}

async function openRun(runId, wait) {
  state.runId = runId;
  const box = $("timeline");
  box.replaceChildren(el("div", "empty", "Loading the timeline…"));
  for (const row of $("runs").tBodies[0].rows) row.setAttribute("aria-current", String(row.dataset.run === runId));
  for (let tries = wait ? 40 : 1; tries > 0; tries -= 1) {
    try {
      const timeline = await api(`/api/studio/runs/${encodeURIComponent(runId)}`);
      if (state.runId === runId) renderTimeline(timeline);
      loadRuns();
      return;
    } catch (error) {
      if (error.status !== 404 || tries === 1) {
        box.replaceChildren(el("div", "empty", error.message));
        return;
      }
      box.replaceChildren(el("div", "empty", "Waiting for the run's spans to reach the trace store…"));
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

function spanKind(span) {
  const attributes = span.attributes;
  if (attributes["procession.hook"]) return "hook";
  if (attributes["gen_ai.operation.name"] === "chat") return "model";
  if (attributes["gen_ai.operation.name"] === "execute_tool") return "tool";
  if (attributes["procession.step.number"] !== undefined) return "step";
  return "run";
}

function renderTimeline(timeline) {
  const box = $("timeline");
  const run = timeline.run;
  box.replaceChildren();
  const title = el("h3", "", `${run.agentName || run.agentId} `);
  title.append(el("span", `outcome ${run.outcome}`, run.outcome));
  box.append(title);
  const sub = [run.runId, new Date(run.start).toLocaleString(), ms(run.durationMs)];
  if (run.threadId) sub.push(`thread ${run.threadId}`);
  box.append(el("div", "sub", sub.join(" · ")));
  const hooks = Object.fromEntries(timeline.hookCalls.map((call) => [call.spanId, call]));
  const total = Math.max(run.durationMs, 0.001);
  for (const span of timeline.spans) box.append(spanRow(span, hooks[span.spanId], total));
  for (const inner of timeline.internalRuns) {
    const link = el("div", "sub", `internal run ${inner.runId} (${inner.agentId}): ${inner.outcome}`);
    box.append(link);
  }
}

// A span's event as a line: a hook's abort that asked for a retry (and got one) is a retry,
// not a tripwire; an abort that blocked the run, a retry none was left for included, is one.
function eventLine(event, hook) {
  const attributes = event.attributes;
  const who = attributes.processor_id || "a processor";
  const reason = attributes.reason || "";
  let kind = event.name.replace("procession.", "");
  if (kind === "tripwire" && attributes.retry && hook && hook.outcome === "retry") kind = "retry";
  if (kind === "retry") return el("span", "event retry", `retry asked by ${who}: ${reason}`);
  const extra = kind === "tripwire" && attributes.retry ? " (asked for a retry, none left)" : "";
  return el("span", `event ${kind}`, `${kind} by ${who}${extra}: ${reason}`);
}

function spanRow(span, hook, total) {
  const kind = spanKind(span);
  const row = el("div", `span-row k-${kind}`);
  row.dataset.span = span.name;
  const name = el("div", "name");
  name.style.paddingLeft = `${span.depth * 14}px`;
  name.append(document.createTextNode(span.name));
  const attributes = span.attributes;
  const outcome = hook ? hook.outcome : attributes["procession.step.outcome"] || attributes["procession.run.outcome"];
  const attempt = attributes["procession.step.attempt"] || 0;
  if (kind === "step" && attempt) name.append(document.createTextNode(` · retry ${attempt}`));
  if (outcome) {
    name.append(document.createTextNode(" "));
    name.append(el("span", `outcome ${outcome}`, outcome));
  }
  if (hook && hook.calls !== null) {
    name.append(el("span", "counts", ` ${hook.calls} chunks: ${hook.kept} kept, ${hook.replaced} replaced, ${hook.dropped} dropped`));
  }
  for (const event of span.events) name.append(eventLine(event, hook));
  name.title = span.name;
  const track = el("div", "track");
  const fill = el("div", "fill");
  fill.style.left = `${Math.min(100, (span.offsetMs / total) * 100)}%`;
  fill.style.width = `${Math.max(0.3, (span.durationMs / total) * 100)}%`;
  track.append(fill);
  row.append(name, track, el("div", "dur", ms(hook ? hook.durationMs : span.durationMs)));
  return row;
}

$("refresh-runs").addEventListener("click", loadRuns);

// -- threads and their stored messages --------------------------------------------------------

async function loadThreads() {
  const list = $("threads");
  const agent = state.agents[state.agentId];
  $("messages").replaceChildren();
  list.replaceChildren();
  if (!agent.supportsMemory) {
    $("threads-hint").textContent = "This agent has no memory: nothing is stored.";
    return;
  }
  $("threads-hint").textContent = "";
  let found;
  try {
    found = await api(`/api/memory/threads${query({ agentId: state.agentId, resourceId: resource() })}`);
  } catch (error) {
    $("threads-hint").textContent = error.message;
    return;
  }
  for (const thread of found.threads) {
    const item = el("li");
    item.dataset.thread = thread.id;
    item.append(el("span", "id", thread.title || thread.id));
    item.append(el("span", "when", new Date(thread.updatedAt).toLocaleString()));
    item.addEventListener("click", () => openThread(thread.id));
    list.append(item);
  }
  if (!found.threads.length) $("threads-hint").textContent = "No threads stored for this resource.";
}

async function openThread(threadId) {
  for (const item of $("threads").children) item.setAttribute("aria-current", String(item.dataset.thread === threadId));
  const box = $("messages");
  box.replaceChildren(el("div", "empty", "Loading…"));
  const params = query({ agentId: state.agentId, resourceId: resource(), perPage: "false" });
  let found;
  try {
    found = await api(`/api/memory/threads/${encodeURIComponent(threadId)}/messages${params}`);
  } catch (error) {
    box.replaceChildren(el("div", "empty", error.message));
    return;
  }
  box.replaceChildren();
  for (const message of found.messages) box.append(storedMessage(message));
  if (!found.messages.length) box.append(el("div", "empty", "No stored messages."));
}

function storedMessage(message) {
  const box = el("div", `stored ${message.role}`);
  const head = el("div");
  head.append(el("span", "role", message.role), el("span", "mid", message.id));
  box.append(head);
  const content = message.content || {};
  const parts = Array.isArray(content.parts) ? content.parts : [];
  if (typeof content === "string") box.append(el("div", "text", content));
  for (const part of parts) {
    if (part.type === "text") box.append(el("div", "text", part.text));
    else if (part.type === "reasoning") box.append(el("div", "reasoning", part.reasoning || part.text || ""));
    else if (part.type === "tool-invocation") {
      const call = part.toolInvocation || {};
      const tool = el("div", "tool", `→ ${call.toolName}(${JSON.stringify(call.args || {})})`);
      if (call.result !== undefined) tool.append(el("div", "res", `← ${JSON.stringify(call.result)}`));
      box.append(tool);
    } else if (part.type.startsWith("data-")) {
      const data = el("div", "note data");
      data.append(el("span", "proc", part.type), el("code", "", JSON.stringify(part.data)));
      box.append(data);
    } else if (part.type !== "step-start") box.append(el("span", "chip", part.type));
  }
  return box;
}

$("refresh-threads").addEventListener("click", loadThreads);

boot();
