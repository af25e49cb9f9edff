import { describe, expect, it } from "vitest";
import { addressesIn } from "./email-recipients";

const addresses = (text: string) => addressesIn(text, "p").map((r) => r.address);

describe("addressesIn", () => {
  it("finds plain, bracketed-name and IP-literal addresses, trimming trailing dots", () => {
    expect(addressesIn("Ann <ann@Acme.Example>, bob@acme.example.", "to")).toEqual([
      { path: "to", address: "ann@Acme.Example", domain: "acme.example" },
      { path: "to", address: "bob@acme.example", domain: "acme.example" },
    ]);
    expect(addressesIn("x@[10.0.0.1] y@2130706433", "p").map((r) => r.domain)).toEqual(["[10.0.0.1]", "2130706433"]);
  });

  it("skips single-label names, empty local parts and unclosed domain literals", () => {
    expect(addresses("root@localhost @acme.example a@ a@[10.0.0.1 b@c.example")).toEqual(["b@c.example"]);
  });

  it("starts the next address where the last one ended", () => {
    expect(addresses("a@b.example@c.example d.e@f.example")).toEqual(["a@b.example", "d.e@f.example"]);
  });
});

// Each of these once took seconds to minutes (quadratic backtracking); they must finish well
// inside the test timeout with the right answer.
describe("addressesIn on 100,000 adversarial characters", () => {
  const n = 100_000;

  it("a run with no @", () => {
    expect(addresses("a".repeat(n))).toEqual([]);
    expect(addresses("a".repeat(n) + " b@c.example")).toEqual(["b@c.example"]);
  });

  it("a run ending in @ with no domain, and a very long local part", () => {
    expect(addresses("a".repeat(n) + "@")).toEqual([]);
    expect(addresses("a".repeat(n) + "@c.example")).toEqual([`${"a".repeat(n)}@c.example`]);
  });

  it("only @ signs, whitespace or tabs", () => {
    expect(addresses("@".repeat(n))).toEqual([]);
    expect(addresses(" ".repeat(n) + "a@b.example")).toEqual(["a@b.example"]);
    expect(addresses("\t".repeat(n))).toEqual([]);
  });

  it("many unclosed domain literals", () => {
    expect(addresses("a@[b".repeat(n / 4) + " c@d.example")).toEqual(["c@d.example"]);
  });

  it("a domain with a long run of trailing dots", () => {
    expect(addressesIn(`a@b.example${".".repeat(n)}`, "p")).toEqual([{ path: "p", address: "a@b.example", domain: "b.example" }]);
    expect(addresses(`a@b${".".repeat(n)}x`)).toEqual([`a@b${".".repeat(n)}x`]);
  });
});
