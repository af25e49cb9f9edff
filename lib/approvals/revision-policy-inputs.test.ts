import { describe, expect, it } from "vitest";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { proposeAction } from "@/lib/approvals/propose-action";
import { editAction } from "@/lib/approvals/edit-action";
import { recordedPolicyInput } from "@/lib/policy/recorded-policy-inputs";
import { readRecordedRevisions } from "@/lib/db/statements/actions/read-recorded-revisions";
import { DEFAULT_POLICY } from "@/lib/policy/default-policy";

// Members' refunds are reviewed; anything else (an agent's key) is allowed outright.
const BY_ROLE = structuredClone(DEFAULT_POLICY);
BY_ROLE.tools.refund_invoice.rules = [
  { id: "members-reviewed", when: "'requester' in ctx.requesterRoles", effect: "require_approval", quorum: 1, reason: "A member's refunds are reviewed." },
  { id: "keys-allowed", when: "true", effect: "allow", reason: "Refunds by agents' keys run at once." },
];

const t = setUpTestDatabase();
const a = setUpTestTenant(t, { policy: BY_ROLE });

describe("a later revision is assessed with the requesting member's roles, as the first was", () => {
  it("a reviewer's edit of a member's refund needs review again under a rule on the requester's roles; it is not allowed outright", async () => {
    const proposed = await proposeAction(t.db, {
      tenantId: a.id, requester: a.requester, tool: "refund_invoice", args: { invoice_number: "INV-1044", amount_minor: 4_000, reason: "Duplicate charge" },
    });
    expect(proposed).toMatchObject({ state: "pending" });
    if (proposed.state !== "pending") return;
    const next = await editAction(t.db, {
      tenantId: a.id, actionId: proposed.actionId, editor: a.users.reviewer.member, payloadHash: proposed.payloadHash,
      args: { invoice_number: "INV-1044", amount_minor: 3_500, reason: "Duplicate charge" },
    });
    expect(next).toMatchObject({ revision: 2, status: "pending" });
    const revised = await t.db.actionRevision.findFirstOrThrow({ where: { actionId: proposed.actionId, revision: 2 } });
    expect(revised.policyDecision).toMatchObject({ effect: "require_approval", ruleId: "members-reviewed" });
    // The policy page's replay of recorded decisions gives the revision the same input.
    const [replayed] = await readRecordedRevisions(t.db, { tenantId: a.id, limit: 1, actionId: proposed.actionId });
    expect(replayed).toMatchObject({ revision: 2 });
    expect(recordedPolicyInput(replayed, [])).toMatchObject({ context: { requesterRoles: ["requester"] } });
  });
});
