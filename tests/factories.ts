import { randomBytes } from "node:crypto";
import type { Db } from "@/lib/db/client";
import type { Role } from "@/lib/generated/prisma/enums";
import { hashPassword } from "@/lib/auth/password";
import type { Member, Requester } from "@/lib/approvals/actors";
import { sqlTransaction } from "@/lib/db/sql";
import { createDemoBusinessData } from "@/lib/demo/seed";
import { DEFAULT_POLICY } from "@/lib/policy/default-policy";
import type { Policy } from "@/lib/policy/policy-document";

export const TEST_PASSWORD = "correct horse battery staple";
let passwordHash: Promise<string> | undefined;

export type TestUser = { id: string; email: string; roles: Role[]; member: Member };
export type TestTenant = {
  id: string;
  slug: string;
  users: { requester: TestUser; reviewer: TestUser; reviewer2: TestUser; reviewer3: TestUser; auditor: TestUser; admin: TestUser };
  requester: Requester;
};

/** A tenant of its own with the demo business data and one member per role (unique emails). */
export async function createTestTenant(db: Db, options: { policy?: Policy } = {}): Promise<TestTenant> {
  passwordHash ??= hashPassword(TEST_PASSWORD);
  const hash = await passwordHash;
  const suffix = randomBytes(4).toString("hex");
  const tenant = await db.tenant.create({ data: { slug: `t-${suffix}`, name: `Tenant ${suffix}`, domains: [`${suffix}.test`] } });
  await db.toolPolicy.create({ data: { tenantId: tenant.id, version: 1, document: options.policy ?? DEFAULT_POLICY } });
  await sqlTransaction(db, (tx) => createDemoBusinessData(tx, tenant.id));
  const make = async (name: string, roles: Role[]): Promise<TestUser> => {
    const email = `${name}-${suffix}@${suffix}.test`;
    const user = await db.user.create({ data: { email, name, passwordHash: hash } });
    await db.membership.create({ data: { tenantId: tenant.id, userId: user.id, roles } });
    return { id: user.id, email, roles, member: { userId: user.id, label: email, roles, sessionId: null } };
  };
  const users = {
    requester: await make("requester", ["requester"]),
    reviewer: await make("reviewer", ["reviewer"]),
    reviewer2: await make("reviewer2", ["reviewer"]),
    reviewer3: await make("reviewer3", ["reviewer"]),
    auditor: await make("auditor", ["auditor"]),
    admin: await make("admin", ["admin"]),
  };
  return {
    id: tenant.id,
    slug: tenant.slug,
    users,
    requester: { type: "user", userId: users.requester.id, label: users.requester.email, roles: ["requester"] },
  };
}

/** Takes task `taskId`'s lease as a worker would (claimRunnableTask), for a test that proposes for it: returns the lease owner to propose with. */
export async function holdTask(db: Db, taskId: string, workerId = "test-worker"): Promise<string> {
  await db.task.update({ where: { id: taskId }, data: { leaseOwner: workerId, leaseExpiresAt: new Date(Date.now() + 3_600_000) } });
  return workerId;
}
