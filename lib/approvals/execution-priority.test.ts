import { afterAll, beforeAll, expect, it } from "vitest";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { createDb, type Db } from "@/lib/db/client";
import { sqlQuery } from "@/lib/db/sql";
import { Prisma } from "@/lib/generated/prisma/client";
import { proposeAction } from "@/lib/approvals/propose-action";
import { decideAction } from "@/lib/approvals/decide-action";
import { executeAction } from "@/lib/approvals/execute-action";

/** A client with one connection, so whatever comes after the first statement queues. */
let single: Db;

const t = setUpTestDatabase();
const tenant = setUpTestTenant(t);
beforeAll(async () => {
  single = createDb(t.url, { max: 1 });
});
afterAll(async () => {
  await single?.$disconnect();
});

it("runs an approved action ahead of work that was already waiting for a connection", async () => {
  const proposal = await proposeAction(single, {
    tenantId: tenant.id, requester: tenant.requester, tool: "send_email",
    args: { to: "billing@acme.example", subject: "Reminder", body: "Your invoice is due.", invoice_number: "INV-1042" },
  });
  if (proposal.state !== "pending") throw new Error(`expected pending, got ${proposal.state}`);
  await decideAction(single, {
    tenantId: tenant.id, actionId: proposal.actionId, verdict: "approve", payloadHash: proposal.payloadHash,
    reviewer: tenant.users.reviewer.member,
  });

  const finished: string[] = [];
  const held = sqlQuery(single, Prisma.sql`SELECT pg_sleep(0.2)`);
  // Ordinary work queued first: each statement holds the only connection for a moment.
  const queued = Array.from({ length: 6 }, (_, i) =>
    sqlQuery(single, Prisma.sql`SELECT pg_sleep(0.03)`).then(() => void finished.push(`ordinary ${i + 1}`)),
  );
  const execution = executeAction(single, {
    tenantId: tenant.id, actionId: proposal.actionId, payloadHash: proposal.payloadHash, executor: { type: "requester" }, actor: { type: "system", label: "test" },
  }).then((outcome) => {
    finished.push("execution");
    return outcome;
  });
  await Promise.all([held, ...queued]);
  expect((await execution).state).toBe("succeeded");
  // Between its statements an ordinary one may slip in, but it never waits for the whole queue.
  expect(finished.indexOf("execution")).toBeLessThan(3);
});
