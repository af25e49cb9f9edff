import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

/**
 * Where a webhook may be sent (SSRF): http(s) URLs only, without credentials, whose host
 * resolves to public addresses only — never loopback, private, link-local (cloud metadata),
 * carrier-grade NAT, unique-local, multicast or unspecified — unless an admin explicitly allowed
 * this endpoint's host. Checked when the endpoint is registered and again for every delivery,
 * and the delivery connects to exactly the address that was checked (no second lookup a DNS
 * rebinding could answer differently).
 */
// IPv4-mapped IPv6 addresses are judged by the IPv4 address they carry (isPrivateAddress), not
// by a ::ffff:0:0/96 rule: Node's BlockList checks IPv4 addresses against mapped IPv6 rules too.
const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16], ["172.16.0.0", 12],
  ["192.0.0.0", 24], ["192.0.2.0", 24], ["192.168.0.0", 16], ["198.18.0.0", 15], ["198.51.100.0", 24], ["203.0.113.0", 24],
  ["224.0.0.0", 4], ["240.0.0.0", 4],
] as const) BLOCKED.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of [
  ["::", 128], ["::1", 128], ["100::", 64], ["2001:db8::", 32], ["fc00::", 7], ["fe80::", 10], ["ff00::", 8],
] as const) BLOCKED.addSubnet(network, prefix, "ipv6");

export type Destination = { url: URL; address: string; family: 4 | 6 };
export type DestinationCheck = { ok: true; destination: Destination } | { ok: false; reason: string };

/** Whether an address is one a webhook may not reach without an admin's explicit allowance. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 6 && address.toLowerCase().startsWith("::ffff:")) {
    // An IPv4-mapped address is judged as the IPv4 address it carries.
    const v4 = address.slice("::ffff:".length);
    if (isIP(v4) === 4) return BLOCKED.check(v4, "ipv4");
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
  if (blocked && !options.allowPrivate) {
    return {
      ok: false,
      reason: `The host ${host} resolves to ${blocked.address}, a loopback, private or link-local address: refused unless an admin explicitly allows this host.`,
    };
  }
  const first = addresses[0];
  return { ok: true, destination: { url: parsed.url, address: first.address, family: first.family === 6 ? 6 : 4 } };
}
