import { describe, expect, it } from "vitest";
import { InvalidPayloadError } from "./invalid-payload-error";
import { parseStrictJson } from "./parse-strict-json";
import { payloadCanonicalJson, payloadHash, type PayloadFields } from "./payload-hash";
import type { JsonObject } from "./json-value";

const toolCall: PayloadFields = {
  v: 1,
  tenant: "t_demo",
  tool: "refund_invoice",
  args: { invoiceId: "INV-1042", amount_minor: 150000, reason: "duplicate charge" },
  revision: 1,
  policyVersion: 3,
};

const codeAction: PayloadFields = {
  v: 1,
  tenant: "t_demo",
  tool: "run_python",
  code: "print(1)\n",
  language: "python",
  sandbox: { image: "sha256:abc", memoryMb: 256, timeoutMs: 10000, network: "none" },
  revision: 2,
  policyVersion: 3,
};

describe("payloadHash", () => {
  it("returns a sha256-jcs v1 hash", () => {
    const h = payloadHash(toolCall);
    expect(h.algorithm).toBe("sha256-jcs");
    expect(h.version).toBe(1);
    expect(h.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("hashes exactly the invariant-2 fields, absent ones omitted", () => {
    expect(payloadCanonicalJson(toolCall)).toBe(
      '{"args":{"amount_minor":150000,"invoiceId":"INV-1042","reason":"duplicate charge"},' +
        '"policyVersion":3,"revision":1,"tenant":"t_demo","tool":"refund_invoice","v":1}',
    );
    expect(payloadCanonicalJson(codeAction)).toBe(
      '{"code":"print(1)\\n","language":"python","policyVersion":3,"revision":2,' +
        '"sandbox":{"image":"sha256:abc","memoryMb":256,"network":"none","timeoutMs":10000},' +
        '"tenant":"t_demo","tool":"run_python","v":1}',
    );
  });

  it("is stable under key reordering of args (as parsed from the wire)", () => {
    const a = parseStrictJson('{"invoiceId":"INV-1042","amount_minor":150000,"reason":"duplicate charge"}') as JsonObject;
    const b = parseStrictJson('{"reason":"duplicate charge","amount_minor":150000,"invoiceId":"INV-1042"}') as JsonObject;
    expect(payloadHash({ ...toolCall, args: a }).hash).toBe(payloadHash({ ...toolCall, args: b }).hash);
    expect(payloadHash({ ...toolCall, args: a }).hash).toBe(payloadHash(toolCall).hash);
  });

  it("changes when any single field changes", () => {
    const base = payloadHash(toolCall).hash;
    const variants: PayloadFields[] = [
      { ...toolCall, tenant: "t_other" },
      { ...toolCall, tool: "cancel_invoice" },
      { ...toolCall, args: { ...toolCall.args, amount_minor: 150001 } },
      { ...toolCall, args: { ...toolCall.args, reason: "duplicate charge " } },
      { ...toolCall, args: { ...toolCall.args, extra: null } },
      { ...toolCall, revision: 2 },
      { ...toolCall, policyVersion: 4 },
    ];
    const hashes = variants.map((p) => payloadHash(p).hash);
    for (const h of hashes) expect(h).not.toBe(base);
    expect(new Set(hashes).size).toBe(hashes.length);

    const codeBase = payloadHash(codeAction).hash;
    const sandbox = codeAction.sandbox as JsonObject;
    for (const p of [
      { ...codeAction, code: "print(2)\n" },
      { ...codeAction, language: "python3" },
      { ...codeAction, sandbox: { ...sandbox, memoryMb: 512 } },
      { ...codeAction, sandbox: { ...sandbox, image: "sha256:abd" } },
      { ...codeAction, revision: 3 },
      { ...codeAction, policyVersion: 2 },
      { ...codeAction, tenant: "x" },
    ] satisfies PayloadFields[]) {
      expect(payloadHash(p).hash).not.toBe(codeBase);
    }
  });

  it.each<[string, unknown]>([
    ["both args and code", { ...toolCall, code: "x", language: "python", sandbox: {} }],
    ["neither args nor code", { ...toolCall, args: undefined }],
    ["code without sandbox", { ...codeAction, sandbox: null }],
    ["code without language", { ...codeAction, language: undefined }],
    ["language on a tool call", { ...toolCall, language: "python" }],
    ["sandbox on a tool call", { ...toolCall, sandbox: { image: "x" } }],
    ["args as an array", { ...toolCall, args: [1] }],
    ["unknown field", { ...toolCall, hash: "abc" }],
    ["wrong version", { ...toolCall, v: 2 }],
    ["empty tenant", { ...toolCall, tenant: "" }],
    ["revision 0", { ...toolCall, revision: 0 }],
    ["fractional revision", { ...toolCall, revision: 1.5 }],
    ["negative policy version", { ...toolCall, policyVersion: -1 }],
  ])("refuses %s", (_label, fields) => {
    expect(() => payloadHash(fields as PayloadFields)).toThrow(InvalidPayloadError);
  });

  it("refuses non-canonicalizable args with their path", () => {
    try {
      payloadHash({ ...toolCall, args: { items: [1, 2, 3, undefined] } as unknown as JsonObject });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(InvalidPayloadError);
      expect((e as InvalidPayloadError).path).toBe("args.items[3]");
    }
    expect(() => payloadHash({ ...toolCall, args: { amount_minor: 2 ** 60 } })).toThrow(/2\^53/);
  });

  it("accepts sandbox: null on a tool call as 'no sandbox' (same hash as absent)", () => {
    expect(payloadHash({ ...toolCall, sandbox: null }).hash).toBe(payloadHash(toolCall).hash);
  });
});
