import { describe, expect, it } from "vitest";
import { parseAddressRanges as parseTrustedProxies } from "@/lib/net/address-ranges";
import { EnvError, readEnv } from "@/lib/env";
import {
  clientAddressFromHeaders,
  clientKeyFor,
  normalizeAddress,
  PEER_ADDRESS_HEADER,
  resolveClientAddress,
} from "@/lib/auth/client-address";

describe("resolveClientAddress", () => {
  it("with no trusted proxy, the peer is the client and X-Forwarded-For is ignored", () => {
    expect(resolveClientAddress({ peer: "::ffff:203.0.113.9", forwardedFor: "198.51.100.1" }, null)).toBe("203.0.113.9");
    const trusted = parseTrustedProxies("10.0.0.0/8");
    expect(resolveClientAddress({ peer: "203.0.113.9", forwardedFor: "198.51.100.1" }, trusted)).toBe("203.0.113.9");
  });

  it("behind trusted proxies, takes the nearest untrusted hop from the right", () => {
    const trusted = parseTrustedProxies("10.0.0.0/8, 127.0.0.1");
    expect(resolveClientAddress({ peer: "127.0.0.1", forwardedFor: "203.0.113.9" }, trusted)).toBe("203.0.113.9");
    // The client prepended a forged hop; the proxies appended the real one.
    expect(resolveClientAddress({ peer: "10.1.2.3", forwardedFor: "1.1.1.1, 203.0.113.9, 10.0.0.7" }, trusted)).toBe("203.0.113.9");
    // All hops trusted: the leftmost is as far as we can see.
    expect(resolveClientAddress({ peer: "10.1.2.3", forwardedFor: "10.0.0.8" }, trusted)).toBe("10.0.0.8");
    // No header: the proxy itself is the client.
    expect(resolveClientAddress({ peer: "10.1.2.3", forwardedFor: null }, trusted)).toBe("10.1.2.3");
    // Garbage stops the walk at the last trusted hop.
    expect(resolveClientAddress({ peer: "10.1.2.3", forwardedFor: "1.1.1.1, not-an-ip, 10.0.0.7" }, trusted)).toBe("10.0.0.7");
  });

  it("an unknown peer is null, whatever the headers say", () => {
    expect(resolveClientAddress({ peer: null, forwardedFor: "198.51.100.1" }, null)).toBeNull();
    expect(clientAddressFromHeaders({ "x-forwarded-for": "198.51.100.1" }, null)).toBeNull();
  });

  it("reads the stamped peer from either kind of headers", () => {
    expect(clientAddressFromHeaders({ [PEER_ADDRESS_HEADER]: "::1", "x-forwarded-for": "198.51.100.1" }, null)).toBe("::1");
    expect(clientAddressFromHeaders(new Headers({ [PEER_ADDRESS_HEADER]: "127.0.0.1" }), parseTrustedProxies("127.0.0.1"))).toBe("127.0.0.1");
  });
});

describe("COUNTERSIGN_TRUSTED_PROXIES", () => {
  it("accepts addresses and ranges of both families", () => {
    const list = parseTrustedProxies("192.168.0.0/16,::1, fd00::/8 ,203.0.113.5")!;
    expect(list.check("192.168.4.4", "ipv4")).toBe(true);
    expect(list.check("203.0.113.5", "ipv4")).toBe(true);
    expect(list.check("203.0.113.6", "ipv4")).toBe(false);
    expect(list.check("fd12::1", "ipv6")).toBe(true);
    expect(parseTrustedProxies("  ")).toBeNull();
    expect(parseTrustedProxies(undefined)).toBeNull();
  });

  it.each(["proxy.internal", "10.0.0.0/33", "10.0.0.0/8/8", "::1/129", "10.0.0.0/x", "*"])("refuses %j in one line naming the variable and the entry", (entry) => {
    expect(() => parseTrustedProxies(entry)).toThrow(`"${entry}" is not an IP address or CIDR range`);
    const read = () => readEnv("COUNTERSIGN_TRUSTED_PROXIES", { COUNTERSIGN_TRUSTED_PROXIES: `127.0.0.1, ${entry}` });
    expect(read).toThrow(EnvError);
    expect(read).toThrow(/^COUNTERSIGN_TRUSTED_PROXIES=.*is not valid: .*is not an IP address or CIDR range/);
  });

  it("is read from the environment as the list it names, or nothing", () => {
    expect(readEnv("COUNTERSIGN_TRUSTED_PROXIES", {})).toBeUndefined();
    expect(readEnv("COUNTERSIGN_TRUSTED_PROXIES", { COUNTERSIGN_TRUSTED_PROXIES: " " })).toBeUndefined();
    expect(readEnv("COUNTERSIGN_TRUSTED_PROXIES", { COUNTERSIGN_TRUSTED_PROXIES: "10.0.0.0/8" })?.check("10.9.8.7", "ipv4")).toBe(true);
  });
});

describe("normalizeAddress and clientKeyFor", () => {
  it.each([
    ["::ffff:127.0.0.1", "127.0.0.1"],
    ["[2001:DB8::1]:443", "2001:db8::1"],
    ["198.51.100.7:5678", "198.51.100.7"],
    ["fe80::1%eth0", "fe80::1"],
    ["nonsense", null],
    ["", null],
  ])("normalizes %j to %j", (raw, expected) => {
    expect(normalizeAddress(raw)).toBe(expected);
  });

  it("counts IPv4 per address and IPv6 per /64", () => {
    expect(clientKeyFor("203.0.113.9")).toBe("203.0.113.9");
    expect(clientKeyFor("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(clientKeyFor("2001:db8:1:2:bbbb:cccc:dddd:eeee")).toBe("2001:db8:1:2::/64");
    expect(clientKeyFor("::1")).toBe("0:0:0:0::/64");
    expect(clientKeyFor("64:ff9b::192.0.2.33")).toBe("64:ff9b:0:0::/64");
    expect(clientKeyFor(null)).toBe("unknown");
  });
});
