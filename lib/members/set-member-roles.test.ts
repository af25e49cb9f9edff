import { expect, it } from "vitest";
import { createTestTenant, type TestTenant } from "@/tests/factories";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { setMemberRoles } from "@/lib/members/set-member-roles";

const t = setUpTestDatabase();
const a = setUpTestTenant(t);

it("two admins demoting each other at once leave the organisation with one admin: the second is no longer an admin when its change runs (refused, audited)", async () => {
  const second = a.users.reviewer;
  await t.db.membership.updateMany({ where: { tenantId: a.id, userId: second.id }, data: { roles: ["admin"] } });
  const memberships = await t.db.membership.findMany({ where: { tenantId: a.id, userId: { in: [a.users.admin.id, second.id] } } });
  const membershipOf = (userId: string) => memberships.find((m) => m.userId === userId)!.id;
  const demote = (by: TestTenant["users"]["admin"], whom: string) =>
    setMemberRoles(t.db, { tenantId: a.id, membershipId: membershipOf(whom), roles: ["auditor"], actor: { type: "user", id: by.id, label: by.email } });
  const outcomes = await Promise.allSettled([demote(a.users.admin, second.id), demote(second, a.users.admin.id)]);
  expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
  expect(outcomes.filter((o) => o.status === "rejected").map((o) => (o as PromiseRejectedResult).reason.code)).toEqual(["forbidden"]);
  expect(await t.db.membership.count({ where: { tenantId: a.id, roles: { has: "admin" } } })).toBe(1);
  const refused = await t.db.auditEvent.findMany({ where: { tenantId: a.id, type: "member.roles_refused" } });
  expect(refused.map((e) => (e.data as { reason: string }).reason)).toEqual(["not_admin"]);
});

it("the last admin cannot remove their own admin role (refused, audited)", async () => {
  const c = await createTestTenant(t.db);
  const own = await t.db.membership.findFirstOrThrow({ where: { tenantId: c.id, userId: c.users.admin.id } });
  const actor = { type: "user" as const, id: c.users.admin.id, label: c.users.admin.email };
  await expect(setMemberRoles(t.db, { tenantId: c.id, membershipId: own.id, roles: ["auditor"], actor })).rejects.toMatchObject({ code: "last_admin" });
  expect((await t.db.membership.findUniqueOrThrow({ where: { id: own.id } })).roles).toContain("admin");
  const refused = await t.db.auditEvent.findMany({ where: { tenantId: c.id, type: "member.roles_refused" } });
  expect(refused.map((e) => (e.data as { reason: string }).reason)).toEqual(["last_admin"]);
});

it("an admin demoted after their request passed the boundary changes no one's roles", async () => {
  const c = await createTestTenant(t.db);
  const target = await t.db.membership.findFirstOrThrow({ where: { tenantId: c.id, userId: c.users.requester.id } });
  // The reviewer was an admin when their request was authorised, and is not any more.
  const formerAdmin = { type: "user" as const, id: c.users.reviewer.id, label: c.users.reviewer.email };
  await expect(setMemberRoles(t.db, { tenantId: c.id, membershipId: target.id, roles: ["admin"], actor: formerAdmin })).rejects.toMatchObject({ code: "forbidden", status: 403 });
  expect((await t.db.membership.findUniqueOrThrow({ where: { id: target.id } })).roles).toEqual(["requester"]);
  expect(await t.db.auditEvent.count({ where: { tenantId: c.id, type: "member.roles_refused" } })).toBe(1);
});

it("an id that is not a member of this tenant is not found, whatever it looks like", async () => {
  for (const membershipId of ["-".repeat(36), "00000000-0000-0000-0000-000000000000"]) {
    await expect(setMemberRoles(t.db, { tenantId: a.id, membershipId, roles: ["auditor"], actor: { type: "system", label: "test" } }))
      .rejects.toMatchObject({ code: "not_found" });
  }
});
