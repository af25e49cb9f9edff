import { describe, expect, it } from "vitest";
import { DEFAULT_POLICY } from "./default-policy";
import { builtInToolCatalogue, type PolicyToolCatalogue } from "./policy-tool-catalogue";
import { validatePolicy } from "./validate-policy";

const builtIns = builtInToolCatalogue();
const base = { defaults: { ttlSeconds: 3600, quorum: 1, eligibleRoles: ["reviewer"] } };
const policyWith = (tools: Record<string, unknown[]>) => ({ ...base, tools: Object.fromEntries(Object.entries(tools).map(([k, rules]) => [k, { rules }])) });
const rule = (id: string, when: string) => ({ id, when, effect: "deny", reason: "r" });
const check = (doc: unknown, tools: PolicyToolCatalogue = builtIns) => validatePolicy(doc, { tools });
const errorsOf = (doc: unknown, tools?: PolicyToolCatalogue) => {
  const r = check(doc, tools);
  if (r.ok) throw new Error("expected the policy to be refused");
  return r.errors;
};

describe("conditions checked against each tool's arguments", () => {
  it("accepts the default policy against the built-in tools, with nothing left unchecked", () => {
    const r = check(DEFAULT_POLICY);
    expect(r).toMatchObject({ ok: true, notes: [] });
  });

  it("refuses the three rules that used to pass as valid, naming the rule and the field", () => {
    const e = errorsOf(policyWith({
      refund_invoice: [rule("no-such-field", "args.amount > 100000"), rule("wrong-type", "args.amount_minor > 'lots'"), rule("fine", "args.amount_minor > 100000")],
      run_pyhton: [{ id: "py", effect: "require_approval", reason: "r" }],
    }));
    expect(e).toEqual([
      { path: "tools.refund_invoice.rules.0.when", message: expect.stringMatching(/^Rule "no-such-field": args\.amount is not an argument of refund_invoice — did you mean args\.amount_minor\?/) },
      { path: "tools.refund_invoice.rules.1.when", message: expect.stringMatching(/^Rule "wrong-type": does not type-check against refund_invoice's arguments \(.*int > string.*amount_minor \(int\)/) },
      { path: "tools.run_pyhton", message: expect.stringMatching(/^There is no tool named run_pyhton — did you mean run_python\?/) },
    ]);
  });

  it("types nested shapes: lists, optional fields, strings; and keeps ctx and helpers working", () => {
    const ok = check(policyWith({
      run_python: [rule("ds", "has(args.datasets) && 'secrets' in args.datasets && args.language == 'python'")],
      send_email: [rule("sub", "args.subject.contains('urgent') && emailDomains(args).exists(d, !(d in ctx.tenantDomains))")],
    }));
    expect(ok.ok).toBe(true);
    const e = errorsOf(policyWith({ run_python: [rule("ds", "args.datasets > 2")], send_email: [rule("to", "args.recipient == 'x'")] }));
    expect(e.map((x) => x.path)).toEqual(["tools.run_python.rules.0.when", "tools.send_email.rules.0.when"]);
    expect(e[1]?.message).toMatch(/args\.recipient is not an argument of send_email\. Its arguments: to \(string\), subject/);
  });

  it("checks an upstream MCP tool against its pinned schema, and says so when there is none", () => {
    const withMcp: PolicyToolCatalogue = {
      tools: [...builtIns.tools, {
        name: "crm__update_deal", kind: "tool", source: "mcp", status: "approved",
        inputSchema: { type: "object", properties: { deal_id: { type: "string" }, value: { type: "number" }, stage: { enum: ["won", "lost"] } }, required: ["deal_id"] },
      }],
    };
    expect(check(policyWith({ crm__update_deal: [rule("big", "args.value > 10000 && args.stage == 'won'")] }), withMcp)).toMatchObject({ ok: true, notes: [] });
    expect(errorsOf(policyWith({ crm__update_deal: [rule("typo", "args.deal == 'x'")] }), withMcp)[0]).toMatchObject({
      path: "tools.crm__update_deal.rules.0.when", message: expect.stringMatching(/args\.deal is not an argument of crm__update_deal — did you mean args\.deal_id\?/),
    });
    const unknown = check(policyWith({ tickets__close: [rule("any", "args.whatever == 1")] }), withMcp);
    expect(unknown.ok).toBe(true);
    expect(unknown.notes).toEqual([{ path: "tools.tickets__close", message: expect.stringMatching(/^No MCP tool named tickets__close has an approved definition here, so the arguments its rules read are not checked/) }]);
  });

  it("without the tenant's tools (a stored version being read) only the document itself is checked", () => {
    expect(validatePolicy(policyWith({ run_pyhton: [rule("x", "args.amount > 1")] })).ok).toBe(true);
    expect(validatePolicy(policyWith({ run_pyhton: [rule("x", "args.amount > 1")] }), { forSave: false, tools: builtIns }).ok).toBe(true);
  });
});
