import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/tests/db";
import { createTestTenant, type TestTenant } from "@/tests/factories";
import { setMemberRoles } from "@/lib/members/set-member-roles";

let t: TestDatabase;
let a: TestTenant;

beforeAll(async () => {
  t = await createTestDatabase();
  a = await createTestTenant(t.db);
});
afterAll(async () => t?.drop());

it("two admins demoting each other at once leave the organisation with one admin, and the refusal is audited", async () => {
  const second = a.users.reviewer;
  await t.db.membership.updateMany({ where: { tenantId: a.id, userId: second.id }, data: { roles: ["admin"] } });
  const memberships = await t.db.membership.findMany({ where: { tenantId: a.id, userId: { in: [a.users.admin.id, second.id] } } });
  const membershipOf = (userId: string) => memberships.find((m) => m.userId === userId)!.id;
  const demote = (by: TestTenant["users"]["admin"], whom: string) =>
    setMemberRoles(t.db, { tenantId: a.id, membershipId: membershipOf(whom), roles: ["auditor"], actor: { type: "user", id: by.id, label: by.email } });
  const outcomes = await Promise.allSettled([demote(a.users.admin, second.id), demote(second, a.users.admin.id)]);
  expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
  expect(outcomes.filter((o) => o.status === "rejected").map((o) => (o as PromiseRejectedResult).reason.code)).toEqual(["last_admin"]);
  expect(await t.db.membership.count({ where: { tenantId: a.id, roles: { has: "admin" } } })).toBe(1);
  expect(await t.db.auditEvent.count({ where: { tenantId: a.id, type: "member.roles_refused" } })).toBe(1);
});

it("an id that is not a member of this tenant is not found, whatever it looks like", async () => {
  for (const membershipId of ["-".repeat(36), "00000000-0000-0000-0000-000000000000"]) {
    await expect(setMemberRoles(t.db, { tenantId: a.id, membershipId, roles: ["auditor"], actor: { type: "system", label: "test" } }))
      .rejects.toMatchObject({ code: "not_found" });
  }
});
