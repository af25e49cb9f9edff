import { expect, it } from "vitest";
import { createTestTenant, type TestUser } from "@/tests/factories";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { setMemberRoles } from "@/lib/members/set-member-roles";

const t = setUpTestDatabase();
const a = setUpTestTenant(t);

const actorOf = (user: TestUser) => ({ type: "user" as const, id: user.id, label: user.email });
const membershipOf = async (tenantId: string, user: TestUser) => (await t.db.membership.findFirstOrThrow({ where: { tenantId, userId: user.id } })).id;
/** Why each refused role change of the tenant was refused, as audited. */
const refusedReasons = async (tenantId: string) =>
  (await t.db.auditEvent.findMany({ where: { tenantId, type: "member.roles_refused" } })).map((e) => (e.data as { reason: string }).reason);

it("two admins demoting each other at once leave the organisation with one admin: the second is no longer an admin when its change runs (refused, audited)", async () => {
  const second = a.users.reviewer;
  await t.db.membership.updateMany({ where: { tenantId: a.id, userId: second.id }, data: { roles: ["admin"] } });
  const [adminMembership, secondMembership] = [await membershipOf(a.id, a.users.admin), await membershipOf(a.id, second)];
  const demote = (by: TestUser, membershipId: string) => setMemberRoles(t.db, { tenantId: a.id, membershipId, roles: ["auditor"], actor: actorOf(by) });
  const outcomes = await Promise.allSettled([demote(a.users.admin, secondMembership), demote(second, adminMembership)]);
  expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
  expect(outcomes.filter((o) => o.status === "rejected").map((o) => (o as PromiseRejectedResult).reason.code)).toEqual(["forbidden"]);
  expect(await t.db.membership.count({ where: { tenantId: a.id, roles: { has: "admin" } } })).toBe(1);
  expect(await refusedReasons(a.id)).toEqual(["not_admin"]);
});

it("the last admin cannot remove their own admin role (refused, audited)", async () => {
  const c = await createTestTenant(t.db);
  const own = await membershipOf(c.id, c.users.admin);
  await expect(setMemberRoles(t.db, { tenantId: c.id, membershipId: own, roles: ["auditor"], actor: actorOf(c.users.admin) })).rejects.toMatchObject({ code: "last_admin" });
  expect((await t.db.membership.findUniqueOrThrow({ where: { id: own } })).roles).toContain("admin");
  expect(await refusedReasons(c.id)).toEqual(["last_admin"]);
});

it("an admin demoted after their request passed the boundary changes no one's roles", async () => {
  const c = await createTestTenant(t.db);
  const target = await membershipOf(c.id, c.users.requester);
  // The reviewer was an admin when their request was authorised, and is not any more.
  const formerAdmin = actorOf(c.users.reviewer);
  await expect(setMemberRoles(t.db, { tenantId: c.id, membershipId: target, roles: ["admin"], actor: formerAdmin })).rejects.toMatchObject({ code: "forbidden", status: 403 });
  expect((await t.db.membership.findUniqueOrThrow({ where: { id: target } })).roles).toEqual(["requester"]);
  expect(await t.db.auditEvent.count({ where: { tenantId: c.id, type: "member.roles_refused" } })).toBe(1);
});

it("an id that is not a member of this tenant is not found, whatever it looks like", async () => {
  for (const membershipId of ["-".repeat(36), "00000000-0000-0000-0000-000000000000"]) {
    await expect(setMemberRoles(t.db, { tenantId: a.id, membershipId, roles: ["auditor"], actor: { type: "system", label: "test" } }))
      .rejects.toMatchObject({ code: "not_found" });
  }
});
