import { isIP, type BlockList } from "node:net";
import { readEnv } from "@/lib/env";

/**
 * The socket's peer address, written onto every request by the server itself
 * (stamp-peer-address.ts) over whatever a client sent: `X-Forwarded-For` alone cannot tell a real
 * address from a forged one.
 */
export const PEER_ADDRESS_HEADER = "x-countersign-peer-address";

/** The reverse proxies whose `X-Forwarded-For` is believed (COUNTERSIGN_TRUSTED_PROXIES, lib/env.ts). */
export function trustedProxiesFromEnv(): BlockList | null {
  return readEnv("COUNTERSIGN_TRUSTED_PROXIES") ?? null;
}

/**
 * One address in canonical text, or null if `raw` is not one: IPv4-mapped IPv6 becomes IPv4, and
 * brackets, ports and zone ids (`[::1]:443`, `1.2.3.4:5678`, `fe80::1%eth0`) are dropped.
 */
export function normalizeAddress(raw: string | null | undefined): string | null {
  let text = raw?.trim() ?? "";
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text);
  if (bracketed) text = bracketed[1];
  const v4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(text);
  if (v4WithPort) text = v4WithPort[1];
  text = text.replace(/%[\w.-]+$/, "").toLowerCase();
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text);
  if (mapped) text = mapped[1];
  return isIP(text) === 0 ? null : text;
}

function isTrusted(address: string, trusted: BlockList): boolean {
  return trusted.check(address, isIP(address) === 6 ? "ipv6" : "ipv4");
}

/**
 * The client's address: the socket peer, or, when that is a trusted proxy, the nearest untrusted
 * address in `X-Forwarded-For` walking from the right (what lies left of it is the client's claim).
 * Null when the peer is unknown.
 */
export function resolveClientAddress(
  input: { peer: string | null | undefined; forwardedFor: string | null | undefined },
  trusted: BlockList | null,
): string | null {
  const peer = normalizeAddress(input.peer);
  if (!peer || !trusted || !isTrusted(peer, trusted)) return peer;
  const hops = (input.forwardedFor ?? "").split(",");
  let client = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normalizeAddress(hops[i]);
    // A malformed entry ends what can be believed: the last trusted hop is the client we know.
    if (!hop) break;
    client = hop;
    if (!isTrusted(hop, trusted)) break;
  }
  return client;
}

/** Reads the client address from request headers (a `Headers` or next-auth's plain object). */
export function clientAddressFromHeaders(
  headers: Headers | Record<string, string | string[] | undefined> | undefined,
  trusted: BlockList | null = trustedProxiesFromEnv(),
): string | null {
  const get = (name: string): string | null => {
    if (!headers) return null;
    if (headers instanceof Headers) return headers.get(name);
    const value = headers[name];
    return Array.isArray(value) ? value.join(",") : (value ?? null);
  };
  return resolveClientAddress({ peer: get(PEER_ADDRESS_HEADER), forwardedFor: get("x-forwarded-for") }, trusted);
}

/**
 * The key rate limits count a client under: its IPv4 address or IPv6 /64 (a subscriber usually
 * holds a whole /64). Unknown addresses share one key: limited together, not let through.
 */
export function clientKeyFor(address: string | null): string {
  if (!address) return "unknown";
  if (isIP(address) !== 6) return address;
  return `${ipv6Groups(address).slice(0, 4).map((group) => group.toString(16)).join(":")}::/64`;
}

function ipv6Groups(address: string): number[] {
  let text = address;
  const embeddedV4 = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (embeddedV4) {
    const [a, b, c, d] = embeddedV4.slice(1).map(Number);
    text = `${text.slice(0, embeddedV4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split("::");
  const headGroups = head ? head.split(":") : [];
  const tailGroups = tail === undefined ? [] : tail ? tail.split(":") : [];
  const zeros = tail === undefined ? [] : Array<string>(8 - headGroups.length - tailGroups.length).fill("0");
  return [...headGroups, ...zeros, ...tailGroups].map((group) => parseInt(group, 16));
}
