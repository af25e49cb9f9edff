// A real HTTP server speaking enough of the OpenAI chat-completions protocol for the `openai`
// client, so provider tests exercise the real client path (HTTP, headers, errors, timeouts).
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";

export type FakeToolCall = { id?: string; name: string; arguments: string };
export type FakeReply = { content?: string | null; toolCalls?: FakeToolCall[]; model?: string };

/** Scripted replies: consumed in order (the last one repeats), or computed from the request body. */
export type FakeScript = FakeReply[] | ((body: unknown, index: number) => FakeReply);

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
      requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, rawBody, body });

      if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
        return json(res, 404, { error: { message: "Not found", type: "invalid_request_error" } });
      }
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
          const reply = typeof script === "function" ? script(body, index) : script[Math.min(index, script.length - 1)];
          const model = reply.model ?? (body && typeof body === "object" && "model" in body ? String(body.model) : "fake-model");
          const toolCalls = (reply.toolCalls ?? []).map((call, i) => ({
            id: call.id ?? `call_fake_${index}_${i}`,
            type: "function",
            function: { name: call.name, arguments: call.arguments },
          }));
          return json(res, 200, {
            id: `chatcmpl-fake-${index}`,
            object: "chat.completion",
            created: Math.floor(Date.now() / 1000),
            model,
            choices: [
              {
                index: 0,
                message: { role: "assistant", content: reply.content ?? null, refusal: null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
                finish_reason: toolCalls.length ? "tool_calls" : "stop",
                logprobs: null,
              },
            ],
            usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
          });
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

function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}
