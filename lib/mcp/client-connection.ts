import { AsyncLocalStorage } from "node:async_hooks";

/**
 * The HTTP request a JSON-RPC message arrived on, as far as its handler needs it: its signal,
 * which aborts when the client disconnects before the answer is written. The SDK's request
 * handlers only learn of an explicit `notifications/cancelled` (or the session closing); a tool
 * call waiting for a reviewer must also stop when the connection that would carry its answer is
 * gone, and the message's handler runs in the async context the request was handled in.
 */
const connection = new AsyncLocalStorage<AbortSignal>();

/** Runs `handle` (the transport's handling of one HTTP request) with that request's signal in context. */
export function withClientConnection<T>(signal: AbortSignal, handle: () => Promise<T>): Promise<T> {
  return connection.run(signal, handle);
}

/** The signal of the HTTP request whose message is being handled; undefined outside one. */
export function clientConnectionSignal(): AbortSignal | undefined {
  return connection.getStore();
}
