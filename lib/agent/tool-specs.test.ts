import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { parseToolCall, toolSpecsForModel } from "@/lib/agent/tool-specs";
import { toolInputSchema } from "@/lib/tools/tool-input-schema";
import { requireTool, TOOLS } from "@/lib/tools/registry";
import { defineTool } from "@/lib/tools/tool";

describe("toolSpecsForModel", () => {
  it("describes every registered tool with a closed JSON schema from its zod args", () => {
    const specs = toolSpecsForModel();
    expect(specs.map((s) => (s.type === "function" ? s.function.name : ""))).toEqual(TOOLS.map((t) => t.name));
    for (const spec of specs) {
      if (spec.type !== "function") throw new Error("expected function tools");
      expect(spec.function.parameters).toMatchObject({ type: "object", additionalProperties: false });
      expect(spec.function.parameters).not.toHaveProperty("$schema");
    }
    const refund = specs.find((s) => s.type === "function" && s.function.name === "refund_invoice");
    expect(refund?.type === "function" && refund.function.parameters?.required).toEqual(["invoice_number", "amount_minor", "reason"]);
  });

  it("says that optional arguments take null (read as absent), and required ones do not", () => {
    const email = toolInputSchema(requireTool("send_email")) as { properties: Record<string, { type: unknown }>; required: string[] };
    expect(email.required).toEqual(["to", "subject", "body"]);
    expect(email.properties.invoice_number.type).toEqual(["string", "null"]);
    expect(email.properties.customer_ref.type).toEqual(["string", "null"]);
    expect(email.properties.to.type).toBe("string");
    const python = toolInputSchema(requireTool("run_python")) as { properties: Record<string, unknown> };
    expect(python.properties.language).toEqual({ type: ["string", "null"], enum: ["python", null], default: "python" });
  });

  it("in OpenAI's strict form lists every argument as required, the optional ones nullable", () => {
    const strict = toolInputSchema(requireTool("send_email"), { strict: true }) as { properties: Record<string, { type: unknown }>; required: string[] };
    expect(strict.required).toEqual(["to", "subject", "body", "invoice_number", "customer_ref"]);
    expect(strict.properties.invoice_number.type).toEqual(["string", "null"]);
    // What such a model sends for an unused argument is the call without it.
    const parsed = parseToolCall({ name: "send_email", argumentsText: JSON.stringify({ to: "a@b.example", subject: "s", body: "b", invoice_number: null, customer_ref: null }) });
    expect(parsed).toMatchObject({ ok: true, args: { to: "a@b.example", subject: "s", body: "b" } });
    expect(parsed.ok && Object.keys(parsed.args)).toEqual(["to", "subject", "body"]);
  });
});

describe("parseToolCall", () => {
  const execute = vi.fn();
  const probe = defineTool({
    name: "probe",
    kind: "tool",
    description: "test",
    classes: ["read"],
    args: z.strictObject({ n: z.number().int() }),
    snapshot: async () => null,
    preview: () => ({ summary: "", before: null, after: null }),
    apply: async () => {
      execute();
      return { ok: true, result: {} };
    },
  });

  it("accepts a known tool with valid strict-JSON arguments", () => {
    const parsed = parseToolCall({ name: "get_invoice", argumentsText: '{"invoice_number":"INV-1042"}' });
    expect(parsed).toMatchObject({ ok: true, args: { invoice_number: "INV-1042" } });
    expect(parsed.ok && parsed.tool.name).toBe("get_invoice");
  });

  it.each([
    ["an unknown tool", "delete_everything", "{}", /no tool named "delete_everything".*Available tools: lookup_customer/],
    ["non-JSON arguments", "get_invoice", "{invoice_number: INV-1042}", /not valid JSON.*not executed/],
    ["duplicate keys", "get_invoice", '{"invoice_number":"INV-1042","invoice_number":"INV-9"}', /appears more than once/],
    ["an unknown key", "get_invoice", '{"invoice_number":"INV-1042","cc":"x@y.example"}', /do not match its schema.*cc/],
    ["a wrong type", "refund_invoice", '{"invoice_number":"INV-1043","amount_minor":"lots","reason":"dup"}', /amount_minor/],
    ["an array", "get_invoice", "[1]", /must be a JSON object/],
    ["__proto__", "get_invoice", '{"__proto__":{"x":1},"invoice_number":"INV-1"}', /not allowed/],
    ["a number beyond 2^53", "refund_invoice", '{"invoice_number":"INV-1","amount_minor":9007199254740993,"reason":"abc"}', /2\^53/],
  ])("refuses %s with a message for the model", (_what, name, argumentsText, message) => {
    const parsed = parseToolCall({ name, argumentsText });
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toMatch(message);
  });

  it("never executes a refused call", () => {
    const parsed = parseToolCall({ name: "probe", argumentsText: '{"n":1,"n":2}' }, [probe]);
    expect(parsed.ok).toBe(false);
    expect(execute).not.toHaveBeenCalled();
  });

  it("treats empty arguments as an empty object", () => {
    expect(parseToolCall({ name: "probe", argumentsText: "" }, [probe])).toMatchObject({ ok: false, error: expect.stringMatching(/n:/) });
  });
});
