// A real HTTP server speaking enough of OpenAI's wire protocol for the real clients: the
// chat-completions API (the `openai` client, the Vercel `ai` SDK's `.chat()` models, LangChain's
// ChatOpenAI) and the Responses API (the OpenAI Agents SDK's default), each as JSON or, when the
// request asks for `stream: true`, as server-sent events. Provider tests exercise the real client
// path (HTTP, headers, errors, timeouts); the adapter tests run the real agent SDKs against it.
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";

export type FakeToolCall = { id?: string; name: string; arguments: string };
export type FakeReply = { content?: string | null; toolCalls?: FakeToolCall[]; model?: string };

/** Which API a request used. */
export type FakeApi = "chat" | "responses";

/** One turn of the conversation a request carried, the same for both APIs. */
export type FakeTurn =
  | { role: "system" | "user"; text: string }
  | { role: "assistant"; text: string; toolCalls: Array<{ id: string; name: string; arguments: string }> }
  | { role: "tool"; toolCallId: string; text: string };

/**
 * Scripted replies: consumed in order (the last one repeats), or computed from the request body
 * (and the conversation it carries, read the same way for both APIs).
 */
export type FakeScript = FakeReply[] | ((body: unknown, index: number, conversation: FakeTurn[]) => FakeReply);

export type FakeMode =
  | { kind: "ok" }
  /** Any 5xx (default 500). */
  | { kind: "error"; status?: number; message?: string }
  | { kind: "rate-limit"; retryAfterSeconds?: number }
  /** Never answers (until the server is closed). */
  | { kind: "hang" }
  /** Destroys the connection without an HTTP response. */
  | { kind: "close" }
  /** 200 with a body that is not a chat completion. */
  | { kind: "garbage" };

export type RecordedRequest = {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  body: unknown;
  /** Which API the path names, or null for any other path. */
  api: FakeApi | null;
  /** True when the request asked for server-sent events. */
  stream: boolean;
  conversation: FakeTurn[];
};

export type FakeOpenAI = {
  /** e.g. http://127.0.0.1:41234/v1 — pass as baseURL. */
  baseURL: string;
  requests: RecordedRequest[];
  setMode(mode: FakeMode): void;
  close(): Promise<void>;
};

export async function startFakeOpenAI(script: FakeScript = [{ content: "ok" }], initialMode: FakeMode = { kind: "ok" }): Promise<FakeOpenAI> {
  let mode: FakeMode = initialMode;
  let replies = 0;
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks).toString("utf8");
      let body: unknown = null;
      try {
        body = JSON.parse(rawBody) as unknown;
      } catch {
        body = null;
      }
      const path = (req.url ?? "").split("?")[0];
      const api: FakeApi | null = req.method !== "POST" ? null : path.endsWith("/chat/completions") ? "chat" : path.endsWith("/responses") ? "responses" : null;
      const record = asRecord(body);
      const stream = record?.stream === true;
      const conversation = api ? conversationOf(api, body) : [];
      requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, rawBody, body, api, stream, conversation });

      if (!api) return json(res, 404, { error: { message: "Not found", type: "invalid_request_error" } });
      switch (mode.kind) {
        case "hang":
          return;
        case "close":
          req.socket.destroy();
          return;
        case "error":
          return json(res, mode.status ?? 500, { error: { message: mode.message ?? "The server had an error", type: "server_error" } });
        case "rate-limit":
          return json(res, 429, { error: { message: "Rate limit reached", type: "rate_limit_error" } }, mode.retryAfterSeconds !== undefined ? { "retry-after": String(mode.retryAfterSeconds) } : {});
        case "garbage":
          return json(res, 200, { nothing: "here" });
        case "ok": {
          const index = replies++;
          const reply = typeof script === "function" ? script(body, index, conversation) : script[Math.min(index, script.length - 1)];
          const model = reply.model ?? (record && "model" in record ? String(record.model) : "fake-model");
          const toolCalls = (reply.toolCalls ?? []).map((call, i) => ({ id: call.id ?? `call_fake_${index}_${i}`, name: call.name, arguments: call.arguments }));
          const answer = { index, model, content: reply.content ?? null, toolCalls };
          if (api === "responses") return stream ? responsesStream(res, answer) : json(res, 200, responsesBody(answer));
          return stream ? chatStream(res, answer, asRecord(record?.stream_options)?.include_usage === true) : json(res, 200, chatBody(answer));
        }
      }
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    setMode(next) {
      mode = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * The usual agent turn: the model calls `call.name` once (with a fresh call id each conversation),
 * and once the tool's output is back, answers with `answer(output)` (by default, quoting it).
 */
export function callToolThenAnswer(call: { name: string; arguments: string }, answer: (toolOutput: string) => string = (output) => `The tool answered: ${output}`): FakeScript {
  return (_body, _index, conversation) => {
    const last = conversation.at(-1);
    if (last?.role === "tool") return { content: answer(last.text) };
    return { toolCalls: [{ id: `call_${randomBytes(9).toString("hex")}`, name: call.name, arguments: call.arguments }] };
  };
}

/** Every tool output the model was sent, by call id, across all requests (the last one wins). */
export function toolOutputsSent(server: FakeOpenAI): Map<string, string> {
  const outputs = new Map<string, string>();
  for (const request of server.requests) {
    for (const turn of request.conversation) if (turn.role === "tool") outputs.set(turn.toolCallId, turn.text);
  }
  return outputs;
}

/** Every tool call the model made, in order, with the call ids it used. */
export function toolCallsMade(server: FakeOpenAI): Array<{ id: string; name: string; arguments: string }> {
  const seen = new Map<string, { id: string; name: string; arguments: string }>();
  for (const request of server.requests) {
    for (const turn of request.conversation) if (turn.role === "assistant") for (const call of turn.toolCalls) seen.set(call.id, call);
  }
  return [...seen.values()];
}

type Answer = { index: number; model: string; content: string | null; toolCalls: Array<{ id: string; name: string; arguments: string }> };

// ---- reading the conversation ---------------------------------------------------------------

function conversationOf(api: FakeApi, body: unknown): FakeTurn[] {
  const record = asRecord(body);
  if (!record) return [];
  return api === "chat" ? chatConversation(record) : responsesConversation(record);
}

function chatConversation(body: Record<string, unknown>): FakeTurn[] {
  const turns: FakeTurn[] = [];
  for (const message of Array.isArray(body.messages) ? body.messages : []) {
    const m = asRecord(message);
    if (!m) continue;
    const text = textOf(m.content);
    if (m.role === "tool") turns.push({ role: "tool", toolCallId: String(m.tool_call_id ?? ""), text });
    else if (m.role === "assistant") {
      const toolCalls = (Array.isArray(m.tool_calls) ? m.tool_calls : []).map((call) => {
        const c = asRecord(call);
        const fn = asRecord(c?.function);
        return { id: String(c?.id ?? ""), name: String(fn?.name ?? ""), arguments: String(fn?.arguments ?? "") };
      });
      turns.push({ role: "assistant", text, toolCalls });
    } else turns.push({ role: m.role === "user" ? "user" : "system", text });
  }
  return turns;
}

function responsesConversation(body: Record<string, unknown>): FakeTurn[] {
  const turns: FakeTurn[] = [];
  if (typeof body.instructions === "string") turns.push({ role: "system", text: body.instructions });
  if (typeof body.input === "string") return [...turns, { role: "user", text: body.input }];
  for (const item of Array.isArray(body.input) ? body.input : []) {
    const i = asRecord(item);
    if (!i) continue;
    if (i.type === "function_call") {
      const call = { id: String(i.call_id ?? ""), name: String(i.name ?? ""), arguments: String(i.arguments ?? "") };
      const last = turns.at(-1);
      if (last?.role === "assistant") last.toolCalls.push(call);
      else turns.push({ role: "assistant", text: "", toolCalls: [call] });
    } else if (i.type === "function_call_output") {
      turns.push({ role: "tool", toolCallId: String(i.call_id ?? ""), text: textOf(i.output) });
    } else if (i.role === "assistant") {
      turns.push({ role: "assistant", text: textOf(i.content), toolCalls: [] });
    } else if (i.role === "user" || i.role === "system" || i.role === "developer") {
      turns.push({ role: i.role === "user" ? "user" : "system", text: textOf(i.content) });
    }
  }
  return turns;
}

/** A string, or the text parts of a content array (`text`, `input_text`, `output_text`). */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => (typeof asRecord(part)?.text === "string" ? String(asRecord(part)?.text) : "")).join("");
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

// ---- chat completions -----------------------------------------------------------------------

function chatBody(answer: Answer) {
  return {
    id: `chatcmpl-fake-${answer.index}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: answer.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: answer.content,
          refusal: null,
          ...(answer.toolCalls.length ? { tool_calls: answer.toolCalls.map((call) => ({ id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } })) } : {}),
        },
        finish_reason: answer.toolCalls.length ? "tool_calls" : "stop",
        logprobs: null,
      },
    ],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}

function chatStream(res: http.ServerResponse, answer: Answer, includeUsage: boolean): void {
  const base = { id: `chatcmpl-fake-${answer.index}`, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: answer.model };
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({ ...base, choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }] });
  const events: unknown[] = [chunk({ role: "assistant", content: "" })];
  // Text arrives in a few pieces, as a real model streams it.
  for (const piece of pieces(answer.content ?? "")) events.push(chunk({ content: piece }));
  answer.toolCalls.forEach((call, i) => {
    events.push(chunk({ tool_calls: [{ index: i, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }));
    for (const piece of pieces(call.arguments)) events.push(chunk({ tool_calls: [{ index: i, function: { arguments: piece } }] }));
  });
  events.push(chunk({}, answer.toolCalls.length ? "tool_calls" : "stop"));
  if (includeUsage) events.push({ ...base, choices: [], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } });
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  for (const event of events) res.write(`data: ${JSON.stringify(event)}\n\n`);
  res.end("data: [DONE]\n\n");
}

// ---- Responses API --------------------------------------------------------------------------

function responseItems(answer: Answer) {
  const items: Array<Record<string, unknown>> = [];
  if (answer.content !== null) {
    items.push({
      type: "message",
      id: `msg_fake_${answer.index}`,
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: answer.content, annotations: [], logprobs: [] }],
    });
  }
  answer.toolCalls.forEach((call, i) => {
    items.push({ type: "function_call", id: `fc_fake_${answer.index}_${i}`, call_id: call.id, name: call.name, arguments: call.arguments, status: "completed" });
  });
  return items;
}

function responsesBody(answer: Answer, status: "in_progress" | "completed" = "completed") {
  const output = status === "completed" ? responseItems(answer) : [];
  return {
    id: `resp_fake_${answer.index}`,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status,
    model: answer.model,
    output,
    output_text: status === "completed" ? (answer.content ?? "") : "",
    error: null,
    incomplete_details: null,
    instructions: null,
    metadata: {},
    parallel_tool_calls: true,
    temperature: 1,
    top_p: 1,
    tool_choice: "auto",
    tools: [],
    text: { format: { type: "text" } },
    truncation: "disabled",
    usage: status === "completed"
      ? { input_tokens: 1, input_tokens_details: { cached_tokens: 0 }, output_tokens: 1, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 2 }
      : null,
  };
}

function responsesStream(res: http.ServerResponse, answer: Answer): void {
  const events: Array<Record<string, unknown>> = [
    { type: "response.created", response: responsesBody(answer, "in_progress") },
    { type: "response.in_progress", response: responsesBody(answer, "in_progress") },
  ];
  responseItems(answer).forEach((item, outputIndex) => {
    if (item.type === "message") {
      const text = answer.content ?? "";
      const itemId = String(item.id);
      events.push({ type: "response.output_item.added", output_index: outputIndex, item: { ...item, status: "in_progress", content: [] } });
      events.push({ type: "response.content_part.added", item_id: itemId, output_index: outputIndex, content_index: 0, part: { type: "output_text", text: "", annotations: [] } });
      for (const delta of pieces(text)) events.push({ type: "response.output_text.delta", item_id: itemId, output_index: outputIndex, content_index: 0, delta, logprobs: [] });
      events.push({ type: "response.output_text.done", item_id: itemId, output_index: outputIndex, content_index: 0, text, logprobs: [] });
      events.push({ type: "response.content_part.done", item_id: itemId, output_index: outputIndex, content_index: 0, part: { type: "output_text", text, annotations: [] } });
    } else {
      const args = String(item.arguments);
      events.push({ type: "response.output_item.added", output_index: outputIndex, item: { ...item, arguments: "", status: "in_progress" } });
      for (const delta of pieces(args)) events.push({ type: "response.function_call_arguments.delta", item_id: item.id, output_index: outputIndex, delta });
      events.push({ type: "response.function_call_arguments.done", item_id: item.id, output_index: outputIndex, arguments: args });
    }
    events.push({ type: "response.output_item.done", output_index: outputIndex, item });
  });
  events.push({ type: "response.completed", response: responsesBody(answer) });
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  events.forEach((event, sequence) => res.write(`event: ${String(event.type)}\ndata: ${JSON.stringify({ ...event, sequence_number: sequence })}\n\n`));
  res.end();
}

/** A text cut in up to three pieces (a stream that arrives in one piece would hide reassembly bugs). */
function pieces(text: string): string[] {
  if (!text) return [];
  const third = Math.max(1, Math.ceil(text.length / 3));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += third) out.push(text.slice(i, i + third));
  return out;
}

function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}
