import { lookup as dnsLookup } from "node:dns";
import { lookup as dnsLookupAsync } from "node:dns/promises";
import { isIP, type LookupFunction } from "node:net";
import { Agent, fetch as undiciFetch, type RequestInit as UndiciRequestInit } from "undici";
import { readEnv } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { isPrivateAddress, normalHost } from "@/lib/webhooks/destination-guard";

/**
 * Where an HTTP MCP server may be (SSRF): at public addresses only, unless the operator lists its
 * host in MCP_PRIVATE_HOSTS. A tenant's admin chooses the URL and its headers, and an upstream's
 * error text is shown and audited, so without this an admin could make the console fetch its own
 * network, the Docker socket's TCP port or a cloud metadata service and read the answer back.
 * Judged at every connection the console opens to the server (the lookup below), which then goes
 * to exactly the address judged: no second lookup a DNS rebinding could answer differently.
 */

/** The hosts the operator lets MCP servers be at although they resolve to private addresses. */
export function privateMcpHosts(): string[] {
  return (readEnv("MCP_PRIVATE_HOSTS") ?? []).map(normalHost);
}

/**
 * Why the console will not connect to `host` at `address`, or null when it may. The address is not
 * said: a tenant's admin would learn what the console's network calls its hosts.
 */
function refusalFor(host: string, address: string): string | null {
  if (!isPrivateAddress(address) || privateMcpHosts().includes(host)) return null;
  return `${host} is a loopback, private or link-local address: an MCP server there is refused unless the operator lists ${host} in MCP_PRIVATE_HOSTS.`;
}

/** A connection the destination rule refused (its message says why and what to do). */
export class DestinationRefused extends Error {}

/** Resolves `hostname` (every address) and refuses it if any address is refused. */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true, verbatim: true }, (error, addresses) => {
    if (error) return callback(error, "");
    const host = normalHost(hostname);
    const refused = addresses.map((a) => refusalFor(host, a.address)).find((reason) => reason !== null);
    if (refused) return callback(new DestinationRefused(refused), "");
    if (addresses.length === 0) return callback(new DestinationRefused(`${host} does not resolve.`), "");
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0].address, addresses[0].family);
  });
};

/** The refusal for a URL whose host is an address (connections to one skip the lookup), or null. */
function literalRefusal(url: URL): string | null {
  const host = normalHost(url.hostname);
  return isIP(host) ? refusalFor(host, host) : null;
}

/**
 * fetch for one connection to an upstream server: each socket it opens is judged by the rule above
 * (the guarded lookup), and `close` ends them. A refused destination throws DestinationRefused.
 */
export function guardedFetch(): { fetch: typeof fetch; close: () => Promise<void> } {
  const agent = new Agent({ connect: { lookup: guardedLookup } });
  const guarded = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    // The SDK passes a URL and its init; a Request's own method, headers and body would not be sent.
    if (input instanceof Request) throw new TypeError("The MCP transport's fetch takes a URL, not a Request.");
    const url = new URL(input);
    const literal = literalRefusal(url);
    if (literal) throw new DestinationRefused(literal);
    try {
      // The undici package's own fetch, which takes its Agent (and so the lookup); Node's global
      // fetch is an older bundled undici that does not. Its Response is the same web standard
      // object the SDK reads (status, headers, a ReadableStream body). Redirects are never followed
      // here (one to an address would skip the lookup): the SDK follows those within the server's
      // origin itself, through this fetch.
      const redirect = init?.redirect === "error" ? "error" : "manual";
      const response = await undiciFetch(url, { ...(init as UndiciRequestInit), redirect, dispatcher: agent });
      return response as unknown as Response;
    } catch (error) {
      const cause = (error as { cause?: unknown }).cause;
      throw cause instanceof DestinationRefused ? cause : error;
    }
  };
  // Destroyed, not closed: a connection given up on (a timeout, a refusal) is not waited for.
  return { fetch: guarded, close: () => agent.destroy() };
}

/**
 * The same rule when an admin registers or edits a server, so a refused URL is never stored: a
 * 400 that says why. The connections still judge it again (the address may change later).
 */
export async function checkUpstreamDestination(rawUrl: string): Promise<void> {
  const url = new URL(rawUrl);
  const host = normalHost(url.hostname);
  let refusal = literalRefusal(url);
  if (!refusal && !isIP(host)) {
    const addresses = await dnsLookupAsync(host, { all: true, verbatim: true }).catch(() => null);
    if (!addresses || addresses.length === 0) {
      throw new AppError("invalid_mcp_server", `The host ${host} does not resolve: check the server's URL.`, 400);
    }
    refusal = addresses.map((a) => refusalFor(host, a.address)).find((reason) => reason !== null) ?? null;
  }
  if (refusal) throw new AppError("mcp_destination_refused", refusal, 400);
}
