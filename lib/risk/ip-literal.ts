/**
 * True when a host is an IP address rather than a name, in any spelling a URL or
 * mail parser would still resolve: dotted IPv4 (1.2.3.4), short (127.1), octal
 * (0177.0.0.1), hex (0x7f.0.0.1, 0x7f000001) or decimal (2130706433) forms,
 * IPv6 (with or without brackets), and mail's `[1.2.3.4]` / `[IPv6:…]` literals.
 * Following WHATWG URL, a host whose last label is a number is an IPv4 address.
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
