import { describe, expect, it } from "vitest";
import { z } from "zod";
import { payloadHash } from "@/lib/canonical/payload-hash";
import { parseToolArgs } from "@/lib/tools/parse-tool-args";
import { requireTool } from "@/lib/tools/registry";

const email = { to: "billing@acme-corp.example", subject: "Reminder", body: "INV-1042 is due." };
const hashOf = (args: Record<string, unknown>) => {
  const parsed = parseToolArgs(requireTool("send_email"), args);
  if (!parsed.success) throw new Error(parsed.error.message);
  return payloadHash({ v: 1, tenant: "t", tool: "send_email", args: parsed.data, revision: 1, policyVersion: 1 }).hash;
};

describe("parseToolArgs", () => {
  it("reads null for an optional argument as absent: one call, one hash (OpenAI strict schemas send null)", () => {
    expect(hashOf({ ...email, invoice_number: null, customer_ref: null })).toBe(hashOf(email));
    expect(parseToolArgs(requireTool("send_email"), { ...email, invoice_number: null })).toMatchObject({ success: true, data: email });
    // A defaulted argument too: null is the default.
    expect(parseToolArgs(requireTool("run_python"), { code: "print(1)", language: null })).toMatchObject({ success: true, data: { code: "print(1)", language: "python" } });
  });

  it("still refuses null for a required argument, and a value that is not null is judged as before", () => {
    expect(parseToolArgs(requireTool("send_email"), { ...email, subject: null }).success).toBe(false);
    expect(parseToolArgs(requireTool("send_email"), { ...email, invoice_number: "nope" }).success).toBe(false);
    expect(parseToolArgs(requireTool("get_invoice"), { invoice_number: null }).success).toBe(false);
  });

  it("keeps null where the schema itself takes it, reads nested objects the same way, and leaves unknown keys to be refused", () => {
    const args = z.strictObject({
      note: z.string().nullable().optional(),
      filter: z.strictObject({ since: z.string().optional(), tags: z.array(z.strictObject({ name: z.string(), colour: z.string().optional() })) }).optional(),
    });
    const tool = { args: args as unknown as ReturnType<typeof requireTool>["args"] };
    expect(parseToolArgs(tool, { note: null })).toMatchObject({ success: true, data: { note: null } });
    expect(parseToolArgs(tool, { filter: { since: null, tags: [{ name: "a", colour: null }] } })).toEqual({
      success: true, data: { filter: { tags: [{ name: "a" }] } },
    });
    expect(parseToolArgs(tool, { extra: null }).success).toBe(false);
    const proto = JSON.parse('{"__proto__": null, "note": "x"}') as unknown;
    const parsed = parseToolArgs(tool, proto);
    expect(parsed.success).toBe(false);
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  });
});
