import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "@/tests/fixtures";
import { createTestTenant, type TestTenant } from "@/tests/factories";
import { proposeAction } from "@/lib/approvals/propose-action";
import { listReviewQueue, QUEUE_PAGE_SIZE } from "@/lib/review/list-review-queue";
import { decodeQueueCursor } from "@/lib/review/queue-item";

const t = setUpTestDatabase();

async function proposeRefund(tenant: TestTenant, amount: number): Promise<string> {
  const outcome = await proposeAction(t.db, {
    tenantId: tenant.id, requester: tenant.requester, tool: "refund_invoice",
    args: { invoice_number: "INV-1043", amount_minor: amount, reason: "Customer returned the goods" }, reason: "Asked", stepKey: null,
  });
  if (outcome.state !== "pending") throw new Error(JSON.stringify(outcome));
  return outcome.actionId;
}

const reviewerOf = (tenant: TestTenant) => ({ tenantId: tenant.id, userId: tenant.users.reviewer.id, roles: tenant.users.reviewer.roles });
/** The requester, as a reviewer too: their own requests are listed apart, never as theirs to decide. */
const requesterOf = (tenant: TestTenant) => ({ tenantId: tenant.id, userId: tenant.users.requester.id, roles: ["reviewer" as const] });

describe("listReviewQueue", () => {
  it("leaves out an action whose window has closed by the database clock, before the sweeper marks it, from the queue and from the requester's own requests", async () => {
    const tenant = await createTestTenant(t.db);
    const [closed, open] = [await proposeRefund(tenant, 10_000), await proposeRefund(tenant, 11_000)];
    expect((await listReviewQueue(t.db, reviewerOf(tenant))).items.map((i) => i.id).sort()).toEqual([closed, open].sort());

    await t.db.$executeRaw`UPDATE "Action" SET "expiresAt" = clock_timestamp() - interval '1 millisecond' WHERE id = ${closed}::uuid`;
    await t.db.$executeRaw`UPDATE "Action" SET "expiresAt" = clock_timestamp() + interval '1 minute' WHERE id = ${open}::uuid`;
    expect((await t.db.action.findUniqueOrThrow({ where: { id: closed } })).status).toBe("pending");
    expect((await listReviewQueue(t.db, reviewerOf(tenant))).items.map((i) => i.id)).toEqual([open]);
    const own = await listReviewQueue(t.db, requesterOf(tenant));
    expect(own.items).toEqual([]);
    expect(own.ownRequests.map((r) => r.id)).toEqual([open]);
  });

  it("pages through every open action once, in queue order (riskiest, soonest to expire, then id), across ties at the page boundary", async () => {
    const tenant = await createTestTenant(t.db);
    const ids: string[] = [];
    for (let i = 0; i < QUEUE_PAGE_SIZE + 5; i++) ids.push(await proposeRefund(tenant, 1_000 + i));
    // Ties on the sort key: all share one expiry (and risk), so id decides, across the page boundary.
    await t.db.$executeRaw`UPDATE "Action" SET "expiresAt" = date_trunc('milliseconds', now()) + interval '2 hours' WHERE id = ANY(${ids}::uuid[])`;
    const expected = await t.db.action.findMany({
      where: { tenantId: tenant.id }, orderBy: [{ riskRank: "desc" }, { expiresAt: "asc" }, { id: "asc" }], select: { id: true },
    });

    const first = await listReviewQueue(t.db, reviewerOf(tenant));
    expect(first.items).toHaveLength(QUEUE_PAGE_SIZE);
    expect(first.next).not.toBeNull();
    const second = await listReviewQueue(t.db, reviewerOf(tenant), { after: decodeQueueCursor(first.next) });
    expect(second.next).toBeNull();
    expect(second.ownRequests).toEqual([]);
    expect([...first.items, ...second.items].map((i) => i.id)).toEqual(expected.map((row) => row.id));
  });

  it("treats a cursor the statement could not bind as the first page: a time PostgreSQL rejects, a huge rank, an id that is not a uuid", async () => {
    const tenant = await createTestTenant(t.db);
    await proposeRefund(tenant, 2_000);
    const cursor = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const id = "00000000-0000-4000-8000-000000000000";
    for (const value of [
      { riskRank: 1, expiresAt: "-200000-01-01T00:00:00Z", id },
      { riskRank: 2 ** 40, expiresAt: "2030-01-01T00:00:00Z", id },
      { riskRank: 1, expiresAt: "2030-01-01T00:00:00Z", id: "-".repeat(36) },
    ]) {
      const after = decodeQueueCursor(cursor(value));
      expect(after, JSON.stringify(value)).toBeNull();
      expect((await listReviewQueue(t.db, reviewerOf(tenant), { after })).items).toHaveLength(1);
    }
    // One JavaScript reads loosely ("1" is a day in 2001) is written back in the one form the statement binds.
    const loose = decodeQueueCursor(cursor({ riskRank: 1, expiresAt: "1", id }));
    expect(loose?.expiresAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    await expect(listReviewQueue(t.db, reviewerOf(tenant), { after: loose })).resolves.toBeDefined();
    expect(decodeQueueCursor(cursor({ riskRank: 1, expiresAt: "2030-01-01", id }))).toEqual({ riskRank: 1, expiresAt: "2030-01-01T00:00:00.000Z", id });
  });
});
