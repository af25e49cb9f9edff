import { BlockList, isIP } from "node:net";

/**
 * Parses a comma-separated list of IP addresses and CIDR ranges (`10.0.0.0/8, 127.0.0.1, fd00::/8`)
 * into a BlockList to test addresses against; null for an empty list. Throws an Error naming the
 * first entry that is not an address or range. (Kept free of other imports: lib/env.ts uses it.)
 */
export function parseAddressRanges(raw: string | undefined): BlockList | null {
  const entries = (raw ?? "").split(",").map((entry) => entry.trim()).filter(Boolean);
  if (entries.length === 0) return null;
  const list = new BlockList();
  for (const entry of entries) {
    const [address, prefixText, ...rest] = entry.split("/");
    const family = isIP(address);
    const prefix = prefixText === undefined ? null : Number(prefixText);
    const maxPrefix = family === 6 ? 128 : 32;
    if (family === 0 || rest.length > 0 || (prefix !== null && (!/^\d{1,3}$/.test(prefixText) || prefix > maxPrefix))) {
      throw new Error(`"${entry}" is not an IP address or CIDR range (e.g. 10.0.0.0/8)`);
    }
    const type = family === 6 ? "ipv6" : "ipv4";
    if (prefix === null) list.addAddress(address, type);
    else list.addSubnet(address, prefix, type);
  }
  return list;
}
