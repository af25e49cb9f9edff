import { subscribe } from "node:diagnostics_channel";
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import { PEER_ADDRESS_HEADER } from "@/lib/auth/client-address";

type RequestStart = { request: IncomingMessage; socket: Socket };

function stamp(message: unknown): void {
  const { request, socket } = message as RequestStart;
  // Overwrites any value the client sent under this name.
  request.headers[PEER_ADDRESS_HEADER] = socket.remoteAddress ?? "";
}

let stamping = false;

/**
 * Writes the socket's peer address onto every request before any handler sees it: Next.js gives
 * route handlers no socket and fills `X-Forwarded-For` only when the client sent none. Node
 * publishes `http.server.request.start` synchronously before the `request` event.
 */
export function stampPeerAddresses(): void {
  if (stamping) return;
  stamping = true;
  subscribe("http.server.request.start", stamp);
}
