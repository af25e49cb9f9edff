import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export type SlackCall = { method: string; token: string | null; args: Record<string, unknown> };

/**
 * A local fake of the Slack Web API speaking its wire protocol over real HTTP: POST
 * `/api/<method>` with a Bearer token and a form-encoded (or JSON) body, answered with HTTP 200
 * and `{ ok, ... }` as Slack does. It implements what Countersign calls — chat.postMessage,
 * chat.update, chat.postEphemeral, views.open — keeps the messages it holds, refuses a wrong token
 * (`invalid_auth`) and can be told to fail the next calls (`failNext`).
 */
export async function startFakeSlack(options: { token: string }) {
  const calls: SlackCall[] = [];
  const messages = new Map<string, { channel: string; ts: string; text: string; blocks: unknown }>();
  const failures: Array<{ http: number } | { error: string }> = [];
  let clock = 1_700_000_000;
  const server: Server = createServer((request, response) => {
    let raw = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => (raw += chunk));
    request.on("end", () => {
      const method = (request.url ?? "").replace(/^\/api\//, "").split("?")[0];
      const type = request.headers["content-type"] ?? "";
      const args: Record<string, unknown> = type.includes("application/json")
        ? (JSON.parse(raw || "{}") as Record<string, unknown>)
        : Object.fromEntries(new URLSearchParams(raw));
      for (const key of ["blocks", "view"]) if (typeof args[key] === "string") args[key] = JSON.parse(args[key] as string);
      const auth = request.headers.authorization ?? null;
      const token = auth?.startsWith("Bearer ") ? auth.slice(7) : null;
      calls.push({ method, token, args });
      const answer = (status: number, body: Record<string, unknown>) => {
        response.statusCode = status;
        response.setHeader("content-type", "application/json; charset=utf-8");
        response.end(JSON.stringify(body));
      };
      const failure = failures.shift();
      if (failure && "http" in failure) return answer(failure.http, { ok: false, error: "fatal_error" });
      if (failure) return answer(200, { ok: false, error: failure.error });
      if (token !== options.token) return answer(200, { ok: false, error: "invalid_auth" });
      if (method === "chat.postMessage") {
        const ts = `${clock++}.000100`;
        const channel = String(args.channel);
        messages.set(`${channel}/${ts}`, { channel, ts, text: String(args.text ?? ""), blocks: args.blocks });
        return answer(200, { ok: true, channel, ts, message: { text: args.text, ts } });
      }
      if (method === "chat.update") {
        const key = `${String(args.channel)}/${String(args.ts)}`;
        const held = messages.get(key);
        if (!held) return answer(200, { ok: false, error: "message_not_found" });
        messages.set(key, { ...held, text: String(args.text ?? ""), blocks: args.blocks });
        return answer(200, { ok: true, channel: held.channel, ts: held.ts, text: args.text });
      }
      if (method === "chat.postEphemeral") return answer(200, { ok: true, message_ts: `${clock++}.000200` });
      if (method === "views.open") return answer(200, { ok: true, view: { id: `V${clock++}` } });
      return answer(200, { ok: false, error: "unknown_method" });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`,
    calls,
    messages,
    /** The next calls fail: with an HTTP status, or Slack's `{ ok: false, error }`. */
    failNext: (...next: Array<{ http: number } | { error: string }>) => failures.push(...next),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
