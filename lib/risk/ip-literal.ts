/**
 * Whether a host is an IP address in any spelling a URL or mail parser would resolve: dotted,
 * short (127.1), octal, hex or decimal IPv4, IPv6 with or without brackets, mail's `[1.2.3.4]` and
 * `[IPv6:…]`. As in WHATWG URL, a host whose last label is a number is IPv4.
 */
export function isIpLiteral(host: string): boolean {
  let h = host.trim().toLowerCase();
  if (h.startsWith("[") && h.endsWith("]")) return true;
  if (h.includes(":")) return true; // only IPv6 puts a colon in a bare host
  h = h.replace(/\.$/, "");
  const labels = h.split(".");
  const last = labels[labels.length - 1];
  return last !== undefined && /^(?:0x[0-9a-f]*|[0-9]+)$/.test(last);
}

/** A one-word description of how an IP literal is written, for reasons shown to reviewers. */
export function ipLiteralForm(host: string): "ipv6" | "dotted" | "encoded" {
  const h = host.trim().toLowerCase().replace(/^\[|\]$/g, "").replace(/^ipv6:/, "");
  if (h.includes(":")) return "ipv6";
  return /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/.test(h) ? "dotted" : "encoded";
}
