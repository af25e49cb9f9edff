import { describe, expect, it } from "vitest";
import { z } from "zod";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import type { JsonObject } from "@/lib/canonical/json-value";
import { readLiveState } from "@/lib/approvals/read-live-state";
import { TOOLS, requireTool } from "@/lib/tools/registry";
import { sendEmail } from "@/lib/tools/send-email";
import { pinnedSnapshotOf, upstreamTool } from "@/lib/mcp/upstream/upstream-tool";
import { CustomerRefSchema, InvoiceNumberSchema, recordArguments, uncoveredArguments } from "@/lib/tools/state-references";

const t = setUpTestDatabase();
const a = setUpTestTenant(t);

describe("coverage by construction: every argument that names a record is in the snapshot's declaration", () => {
  it.each(TOOLS.map((tool) => [tool.name, tool] as const))("%s covers every record its arguments name", (_name, tool) => {
    expect(uncoveredArguments(tool)).toEqual([]);
  });

  it("finds the record-naming arguments through optional, default and array wrappers", () => {
    expect(recordArguments(requireTool("send_email").args)).toEqual([{ arg: "invoice_number", names: "invoice" }, { arg: "customer_ref", names: "customer" }]);
    expect(recordArguments(requireTool("run_python").args)).toEqual([{ arg: "datasets", names: "dataset" }]);
  });

  it("fails for a tool whose snapshot leaves a named record out (send_email as it was: the customer only)", () => {
    const customerOnly = { ...sendEmail, restsOn: sendEmail.restsOn?.filter((ref) => ref.entity === "customer") };
    expect(uncoveredArguments(customerOnly)).toEqual(["invoice_number (invoice)"]);
    // A customer read through the invoice does not cover the invoice itself.
    const throughOnly = { ...sendEmail, restsOn: sendEmail.restsOn?.filter((ref) => "through" in ref) };
    expect(uncoveredArguments(throughOnly)).toEqual(["invoice_number (invoice)", "customer_ref (customer)"]);
  });

  it("fails for a new tool that names a record and declares nothing", () => {
    const tool = { args: z.strictObject({ invoice_number: InvoiceNumberSchema, note: z.string(), owner: CustomerRefSchema.optional() }), classes: ["write"] };
    expect(uncoveredArguments(tool)).toEqual(["invoice_number (invoice)", "owner (customer)"]);
    // A read rests on nothing: its result is the state itself.
    expect(uncoveredArguments({ ...tool, classes: ["read"] })).toEqual([]);
  });
});

describe("the snapshot is exactly the declared fields (read from PostgreSQL)", () => {
  it("an upstream MCP tool rests on its pinned definition, exactly the declared fields", () => {
    const row = {
      id: "t1", serverId: "s1", server: "counter", name: "count", qualifiedName: "counter__count", status: "approved" as const,
      approved: { name: "count", title: "Count", description: "Adds one", inputSchema: { type: "object" } }, approvedHash: "h1",
    };
    const declared = upstreamTool(row).restsOn?.flatMap((ref) => ref.fields) ?? [];
    expect(Object.keys(pinnedSnapshotOf(row.qualifiedName, row)).sort()).toEqual([...declared].sort());
  });

  const cases: Array<[string, JsonObject]> = [
    ["refund_invoice", { invoice_number: "INV-1044", amount_minor: 100, reason: "Goods returned" }],
    ["cancel_invoice", { invoice_number: "INV-1042", reason: "Issued twice" }],
    ["send_email", { to: "ap@initech.example", subject: "Reminder", body: "780.00 USD outstanding", invoice_number: "INV-1045" }],
    ["send_email", { to: "ap@initech.example", subject: "Hello", body: "Hi", customer_ref: "CUST-002" }],
    ["run_python", { code: "print(1)", language: "python", datasets: ["storage-buckets"] }],
  ];
  it.each(cases)("%s %j", async (name, args) => {
    const tool = requireTool(name);
    const snapshot = await readLiveState(t.db, { tenantId: a.id, tool, args, lock: false });
    const expected: Record<string, string[]> = {};
    for (const ref of tool.restsOn ?? []) {
      if (!ref.key || expected[ref.key] || typeof args[ref.arg] !== "string" && !Array.isArray(args[ref.arg])) continue;
      expected[ref.key] = [...ref.fields, ...(ref.entity === "customer" ? ["ref"] : [])].sort();
    }
    const actual = Object.fromEntries(Object.entries(snapshot ?? {}).map(([key, value]) => {
      const record = (Array.isArray(value) ? value[0] : value) as JsonObject;
      return [key, Object.keys(record).sort()];
    }));
    expect(actual).toEqual(expected);
  });

  it("a reminder about an invoice rests on that invoice and its customer, nothing else of either", async () => {
    const snapshot = await readLiveState(t.db, {
      tenantId: a.id, tool: sendEmail, lock: false,
      args: { to: "ap@initech.example", subject: "Reminder", body: "780.00 USD outstanding", invoice_number: "INV-1045" },
    });
    expect(snapshot).toEqual({
      invoice: { status: "open", currency: "USD", amount_due_minor: 78_000, customer_ref: "CUST-002" },
      customer: { ref: "CUST-002", verified_domains: ["initech.example"], opt_out: false },
    });
  });
});
