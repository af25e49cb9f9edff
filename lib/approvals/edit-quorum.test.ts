import { describe, expect, it } from "vitest";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { proposeAction } from "@/lib/approvals/propose-action";
import { editAction } from "@/lib/approvals/edit-action";
import { decideAction } from "@/lib/approvals/decide-action";

const t = setUpTestDatabase();
// Reviewers: reviewer, reviewer2, reviewer3. A refund above 1,000.00 needs two of them.
const a = setUpTestTenant(t);

const LARGE = { invoice_number: "INV-1044", amount_minor: 1_200_000, reason: "Duplicate payment" };

async function proposeLarge() {
  const outcome = await proposeAction(t.db, { tenantId: a.id, requester: a.requester, tool: "refund_invoice", args: LARGE });
  if (outcome.state !== "pending") throw new Error(`expected pending, got ${outcome.state}`);
  return outcome;
}

async function setReviewer3Roles(roles: ("reviewer" | "auditor")[]) {
  await t.db.membership.update({ where: { tenantId_userId: { tenantId: a.id, userId: a.users.reviewer3.id } }, data: { roles } });
}

describe("an edit may not leave fewer members who may decide it than its quorum", () => {
  it("with three reviewers, an edited two-approval refund is written and the other two approve it", async () => {
    const p = await proposeLarge();
    const next = await editAction(t.db, {
      tenantId: a.id, actionId: p.actionId, editor: a.users.reviewer.member, payloadHash: p.payloadHash, args: { ...LARGE, amount_minor: 1_100_000 },
    });
    expect(next).toMatchObject({ revision: 2, status: "pending" });
    for (const reviewer of [a.users.reviewer2, a.users.reviewer3]) {
      await decideAction(t.db, { tenantId: a.id, actionId: p.actionId, reviewer: reviewer.member, verdict: "approve", payloadHash: next.payloadHash });
    }
    expect((await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } })).status).toBe("approved");
  });

  it("with two reviewers, the same edit is refused in one line, audited, and the action stays as it was", async () => {
    await setReviewer3Roles(["auditor"]);
    try {
      const p = await proposeLarge();
      const edit = editAction(t.db, {
        tenantId: a.id, actionId: p.actionId, editor: a.users.reviewer.member, payloadHash: p.payloadHash, args: { ...LARGE, amount_minor: 1_100_000 },
      });
      await expect(edit).rejects.toMatchObject({
        code: "too_few_reviewers",
        message: "Not saved: this edit needs 2 approvals and only 1 member other than you may decide it (its author may not), so it could never be approved; ask an admin to add a reviewer, or decide the action as it stands.",
      });
      const action = await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } });
      expect(action).toMatchObject({ currentRevision: 1, payloadHash: p.payloadHash, status: "pending" });
      expect(await t.db.actionRevision.count({ where: { actionId: p.actionId } })).toBe(1);
      expect(await t.db.auditEvent.count({ where: { tenantId: a.id, type: "action.edit_refused", status: "too_few_reviewers" } })).toBe(1);
      // Unedited, the two reviewers can still approve it.
      for (const reviewer of [a.users.reviewer, a.users.reviewer2]) {
        await decideAction(t.db, { tenantId: a.id, actionId: p.actionId, reviewer: reviewer.member, verdict: "approve", payloadHash: p.payloadHash });
      }
      expect((await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } })).status).toBe("approved");
    } finally {
      await setReviewer3Roles(["reviewer"]);
    }
  });

  it("with two reviewers, an edit down to a one-approval refund is written: the new revision's quorum is what counts", async () => {
    await setReviewer3Roles(["auditor"]);
    try {
      const p = await proposeLarge();
      const next = await editAction(t.db, {
        tenantId: a.id, actionId: p.actionId, editor: a.users.reviewer.member, payloadHash: p.payloadHash, args: { ...LARGE, amount_minor: 90_000 },
      });
      expect(next).toMatchObject({ revision: 2, status: "pending" });
      expect((await t.db.action.findUniqueOrThrow({ where: { id: p.actionId } })).quorum).toBe(1);
    } finally {
      await setReviewer3Roles(["reviewer"]);
    }
  });
});
