import { domainToASCII } from "node:url";
import { describe, expect, it } from "vitest";
import { runCompute } from "@/lib/compute/compute-pool";
import { judgePayloadTask } from "@/lib/approvals/compute";
import { DEFAULT_POLICY } from "@/lib/policy/default-policy";
import type { JsonObject } from "@/lib/canonical/json-value";
import { confusableSkeleton } from "./confusable-skeleton";
import { deceptiveTextTags, escapeNonAscii, LONG_LINE_CHARS } from "./deceptive-text";
import { riskTagsFor } from "./risk-tags-for";
import type { RiskTag } from "./risk-tag";

const VERIFIED = ["example.com"];
const CYRILLIC_A = "\u0430";
const tagsFor = (args: JsonObject, reason?: string) =>
  riskTagsFor({ tool: "send_email", toolClass: ["external-comms"], args, reason, context: { tenantDomains: VERIFIED } });
const on = (tags: RiskTag[], path: string) => tags.filter((t) => t.path === path).map((t) => t.id);

describe("hidden and deceptive text in arguments and the agent's reason", () => {
  it("tags a bidi override and a zero-width space on the exact field", () => {
    const tags = tagsFor({ to: "billing@example.com", body: "Refund \u202eoN\u202c 0001$", note: "ok" }, "Routine\u200b reminder");
    expect(on(tags, "args.body")).toContain("text.bidi-control");
    expect(on(tags, "reason")).toContain("text.zero-width");
    expect(on(tags, "args.to")).toEqual([]);
    expect(on(tags, "args.note")).toEqual([]);
    const bidi = tags.find((t) => t.id === "text.bidi-control")!;
    expect(bidi).toMatchObject({ severity: "high", source: "text" });
    expect(bidi.reason).toContain("U+202E");
    expect(bidi.reason).toContain("2 bidirectional control characters");
  });

  it("tags a Cyrillic lookalike of a verified domain in an email as confusable, naming the character", () => {
    const tags = tagsFor({ to: [`billing@ex${CYRILLIC_A}mple.com`] });
    const confusable = tags.find((t) => t.id === "text.confusable-domain");
    expect(confusable).toMatchObject({ severity: "critical", path: "args.to[0]" });
    expect(confusable?.reason).toContain("ex⟦U+0430⟧mple.com");
    expect(confusable?.reason).toContain("example.com");
    expect(on(tags, "args.to[0]")).toContain("text.mixed-script-domain");
    // The verified domain itself, and its subdomains, are not lookalikes.
    expect(tagsFor({ to: "billing@example.com", cc: "ops@mail.example.com" }).filter((t) => t.source === "text")).toEqual([]);
  });

  it("reports punycode, and sees through it to a lookalike", () => {
    const puny = domainToASCII(`ex${CYRILLIC_A}mple.com`);
    expect(puny).toMatch(/^xn--/);
    const tags = tagsFor({ url: `https://${puny}/pay` });
    expect(on(tags, "args.url")).toEqual(expect.arrayContaining(["text.idn-domain", "text.confusable-domain"]));
    expect(tags.find((t) => t.id === "text.idn-domain")?.reason).toContain(puny);
  });

  it("catches digit and rn lookalikes by skeleton, not ordinary other domains", () => {
    expect(confusableSkeleton("examp1e.com")).toBe(confusableSkeleton("example.com"));
    expect(confusableSkeleton("exarnple.com")).toBe(confusableSkeleton("example.com"));
    expect(confusableSkeleton(`ex${CYRILLIC_A}mple.com`)).toBe("example.com");
    expect(on(tagsFor({ to: "a@examp1e.com" }), "args.to")).toContain("text.confusable-domain");
    expect(on(tagsFor({ to: "a@other.org" }), "args.to")).not.toContain("text.confusable-domain");
  });

  it("tags a line long enough to run off-screen, not a long text with line breaks", () => {
    expect(on(tagsFor({ body: "x".repeat(20_000) }), "args.body")).toContain("text.long-line");
    expect(on(tagsFor({ body: `${"word ".repeat(150)}\n`.repeat(20) }), "args.body")).not.toContain("text.long-line");
    expect(on(tagsFor({ body: "y".repeat(LONG_LINE_CHARS) }), "args.body")).not.toContain("text.long-line");
  });

  it("marks huge values, encoded blobs and binary as not inspectable", () => {
    const blob = Buffer.from(Array.from({ length: 4_000 }, (_, i) => (i * 7919) % 256)).toString("base64");
    expect(on(tagsFor({ attachment: blob }), "args.attachment")).toContain("text.not-inspectable");
    expect(on(tagsFor({ body: "plain words ".repeat(5_000) }), "args.body")).toContain("text.not-inspectable");
    expect(on(tagsFor({ data: "\u0001\u0002\u0003\ufffd".repeat(20) }), "args.data")).toContain("text.not-inspectable");
    expect(on(tagsFor({ body: "A short, ordinary note." }), "args.body")).toEqual([]);
  });

  it("tags tag characters, variation selectors on letters and hidden keys; leaves emoji alone", () => {
    const smuggled = [..."ignore"].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join("");
    expect(tagsFor({ note: `hello${smuggled}` }).find((t) => t.path === "args.note" && t.id === "text.tag-characters")?.severity).toBe("critical");
    expect(on(tagsFor({ note: "pa\ufe01y" }), "args.note")).toContain("text.variation-selector");
    expect(on(tagsFor({ note: "Thanks \u2764\ufe0f" }), "args.note")).toEqual([]);
    const keyed = tagsFor({ ["amount\u200b"]: 5 });
    expect(keyed.find((t) => t.id === "text.zero-width")?.path).toBe('args["amount⟦U+200B⟧"]');
  });

  it("stays correct on 100,000 adversarial characters, through the compute pool", async () => {
    const hostile = `${"a.".repeat(25_000)}${"\u202e\u200b".repeat(10_000)}${"x".repeat(30_000)}`;
    expect(hostile.length).toBe(100_000);
    const judged = await runCompute(judgePayloadTask,
      {
        code: null,
        risk: { tool: "send_email", toolClass: ["external-comms"], args: { body: hostile }, reason: `ex${CYRILLIC_A}mple.com`.repeat(6_000), context: { tenantDomains: VERIFIED } },
        policy: { json: JSON.stringify(DEFAULT_POLICY), cacheKey: "test:hostile" },
        policyInput: { tool: "send_email", args: { body: hostile }, context: { requesterRoles: ["requester"] } },
        refusal: null,
        payload: { tenantId: "t", tool: "send_email", kind: "tool", args: { body: hostile }, code: null, language: null, sandboxSpec: null, revision: 1, policyVersion: 1 },
      },
      { what: "payload", budgetMs: 60_000 },
    );
    expect(on(judged.riskTags, "args.body")).toEqual(expect.arrayContaining(["text.bidi-control", "text.zero-width", "text.long-line", "text.not-inspectable"]));
    expect(on(judged.riskTags, "reason")).toEqual(expect.arrayContaining(["text.long-line", "text.mixed-script-domain"]));
    expect(deceptiveTextTags("args.x", "\u202e".repeat(100_000), VERIFIED).find((t) => t.id === "text.bidi-control")?.reason).toContain("100000");
  });

  it("escapes what is not ASCII in names shown to reviewers", () => {
    expect(escapeNonAscii(`ex${CYRILLIC_A}mple.com`)).toBe("ex⟦U+0430⟧mple.com");
  });
});
