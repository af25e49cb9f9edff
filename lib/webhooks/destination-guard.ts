import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import ipaddr from "ipaddr.js";
import { readEnv } from "@/lib/env";

/**
 * Where a webhook may be sent: http(s), no credentials, every resolved address public, unless an
 * admin allowed the host and the operator lists it in WEBHOOK_PRIVATE_HOSTS. Checked at
 * registration and every delivery, which connects to the address checked (docs/DESIGN.md, "The
 * console calls out only to public addresses"). IPv6 carrying IPv4 is judged by that IPv4
 * (isPrivateAddress): Node's BlockList checks IPv4 against mapped IPv6 rules too.
 */
const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16], ["172.16.0.0", 12],
  ["192.0.0.0", 24], ["192.0.2.0", 24], ["192.168.0.0", 16], ["198.18.0.0", 15], ["198.51.100.0", 24], ["203.0.113.0", 24],
  ["224.0.0.0", 4], ["240.0.0.0", 4],
] as const) BLOCKED.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of [
  // ::/96 holds the unspecified and loopback addresses and the deprecated IPv4-compatible ones;
  // ::ffff:0:0:0/96 IPv4-translated (RFC 6145); 64:ff9b:1::/48 local-use NAT64 (RFC 8215);
  // 2001::/32 Teredo, whose client address is hidden; fec0::/10 deprecated site-local.
  ["::", 96], ["::ffff:0:0:0", 96], ["64:ff9b:1::", 48], ["100::", 64], ["2001::", 32], ["2001:db8::", 32], ["fc00::", 7], ["fe80::", 10],
  ["fec0::", 10], ["ff00::", 8],
] as const) BLOCKED.addSubnet(network, prefix, "ipv6");

/** IPv6 ranges whose addresses carry an IPv4 address that a translator or relay forwards to, and where. */
const CARRY_IPV4 = [
  { network: ipaddr.IPv6.parse("::ffff:0:0"), prefix: 96, at: 12 }, // IPv4-mapped
  { network: ipaddr.IPv6.parse("64:ff9b::"), prefix: 96, at: 12 }, // NAT64's well-known prefix (RFC 6052)
  { network: ipaddr.IPv6.parse("2002::"), prefix: 16, at: 2 }, // 6to4 (RFC 3056)
] as const;

/** The IPv4 address an IPv6 address carries (see CARRY_IPV4), or null. */
function carriedIpv4(address: string): string | null {
  if (!ipaddr.IPv6.isValid(address)) return null;
  const v6 = ipaddr.IPv6.parse(address);
  const carrier = CARRY_IPV4.find((c) => v6.match(c.network, c.prefix));
  return carrier ? v6.toByteArray().slice(carrier.at, carrier.at + 4).join(".") : null;
}

export type Destination = { url: URL; address: string; family: 4 | 6 };
export type DestinationCheck = { ok: true; destination: Destination } | { ok: false; reason: string };

/**
 * A host as an operator's list (MCP_PRIVATE_HOSTS, WEBHOOK_PRIVATE_HOSTS) names it: lower case, an
 * IPv6 address without brackets and in its shortest form, so any spelling of it matches.
 */
export function normalHost(host: string): string {
  const bare = host.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  return isIP(bare) === 6 && ipaddr.IPv6.isValid(bare) ? ipaddr.IPv6.parse(bare).toString() : bare;
}

/** Whether an address is one a webhook may not reach without an admin's explicit allowance. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 6) {
    // An address with a zone (fe80::1%eth0) is link-local whatever its bits say.
    if (address.includes("%")) return true;
    const v4 = carriedIpv4(address);
    if (v4 !== null) return BLOCKED.check(v4, "ipv4");
  }
  return BLOCKED.check(address, family === 4 ? "ipv4" : "ipv6");
}

/** Parses an endpoint URL, or says in one line why it cannot be one. */
export function parseWebhookUrl(text: string): { ok: true; url: URL } | { ok: false; reason: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: "That is not a URL. Enter the endpoint's full address, e.g. https://hooks.example.com/countersign." };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return { ok: false, reason: `Webhooks are sent over http or https only, not ${url.protocol.replace(/:$/, "")}.` };
  if (url.username || url.password) return { ok: false, reason: "Put no credentials in the URL: every delivery is signed, so the receiver can verify it instead." };
  if (url.hash) return { ok: false, reason: "A webhook URL has no #fragment." };
  return { ok: true, url };
}

/** Resolves the endpoint's host and checks every address it has. */
export async function checkDestination(text: string, options: { allowPrivate: boolean }): Promise<DestinationCheck> {
  const parsed = parseWebhookUrl(text);
  if (!parsed.ok) return parsed;
  const host = parsed.url.hostname.replace(/^\[(.*)\]$/, "$1");
  let addresses: Array<{ address: string; family: number }>;
  try {
    addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await lookup(host, { all: true, verbatim: true });
  } catch {
    return { ok: false, reason: `The host ${host} does not resolve.` };
  }
  if (addresses.length === 0) return { ok: false, reason: `The host ${host} does not resolve.` };
  const blocked = addresses.find((a) => isPrivateAddress(a.address));
  // The address is not said: a tenant's admin would learn what the console's network calls its hosts.
  if (blocked && !options.allowPrivate) {
    return {
      ok: false,
      reason: `The host ${host} is a loopback, private or link-local address: refused unless an admin explicitly allows this host.`,
    };
  }
  if (blocked && !(readEnv("WEBHOOK_PRIVATE_HOSTS") ?? []).map(normalHost).includes(normalHost(host))) {
    return {
      ok: false,
      reason: `The host ${host} is a loopback, private or link-local address: the operator must list ${host} in WEBHOOK_PRIVATE_HOSTS before webhooks may go there.`,
    };
  }
  const first = addresses[0];
  return { ok: true, destination: { url: parsed.url, address: first.address, family: first.family === 6 ? 6 : 4 } };
}
