import { afterEach, describe, expect, it, vi } from "vitest";
import { whileTurning } from "@/tests/event-loop";
import { largePolicy } from "@/tests/policies";
import { DEFAULT_POLICY } from "@/lib/policy/default-policy";
import { checkPolicy } from "@/lib/policy/check-policy";
import { builtInToolCatalogue } from "@/lib/policy/policy-tool-catalogue";
import { validatePolicy } from "@/lib/policy/validate-policy";

describe("checkPolicy: a policy document is compiled on the compute pool", () => {
  afterEach(() => vi.unstubAllEnvs());

  it("checks a 250 KB policy off the request thread, with the verdict the validator gives on it", async () => {
    const document = largePolicy();
    expect(JSON.stringify(document).length).toBeGreaterThan(250_000);
    const tools = builtInToolCatalogue();
    const { result, turns } = await whileTurning(() => checkPolicy(document, { forSave: true, tools }));
    // The loop kept turning while the thousands of conditions were parsed and type-checked.
    expect(turns).toBeGreaterThan(0);
    expect(result.ok).toBe(true);
    expect(result).toEqual(validatePolicy(document, { forSave: true, tools, codeTools: ["run_python"] }));
  });

  it("names the bad rules of a large policy as the validator does, against the tenant's tools on a save only", async () => {
    // A misspelt argument in every refund rule: a save checks conditions against the tool's schema.
    const document = largePolicy((i, k) => `args.amount_minr != ${i * 1_000 + k}`);
    const saved = await checkPolicy(document, { forSave: true, tools: builtInToolCatalogue() });
    expect(saved.ok).toBe(false);
    expect(saved).toEqual(validatePolicy(document, { forSave: true, tools: builtInToolCatalogue(), codeTools: ["run_python"] }));
    if (!saved.ok) expect(saved.errors[0].path).toContain("tools.refund_invoice.rules.0");
    // A stored version is read as it was saved.
    expect(await checkPolicy(document, { forSave: false })).toEqual(validatePolicy(document, { forSave: false }));
  });

  it("refuses a document that is not a policy, changing nothing, as the validator does", async () => {
    for (const document of [null, "policy", { tools: {} }, { ...DEFAULT_POLICY, extra: true }]) {
      const checked = await checkPolicy(document, { forSave: false });
      expect(checked.ok).toBe(false);
      expect(checked).toEqual(validatePolicy(document, { forSave: false }));
    }
  });

  it("holds a save to the pool's budget, and reads a stored version back under a budget of its own", async () => {
    vi.stubEnv("COUNTERSIGN_COMPUTE_BUDGET_MS", "1");
    const document = largePolicy();
    await expect(checkPolicy(document, { forSave: true, tools: builtInToolCatalogue() })).rejects.toMatchObject({ code: "too_complex" });
    // The tenant's own policy, saved when the budget allowed it: proposals are not refused for it.
    expect(await checkPolicy(document, { forSave: false })).toEqual(validatePolicy(document, { forSave: false }));
  });
});
