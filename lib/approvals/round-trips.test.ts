import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { setUpTestDatabase } from "@/tests/fixtures";
import { databaseOf, statementsOf } from "@/tests/count-statements";
import { createTestTenant, type TestTenant } from "@/tests/factories";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { createDb, type Db } from "@/lib/db/client";
import { legacyBoundary } from "@/lib/audit/legacy-boundary";
import { proposeAction, type ProposeInput } from "@/lib/approvals/propose-action";
import { sealAllPending, sealAuditChain } from "@/lib/audit/seal-audit-chain";
import { DEFAULT_POLICY } from "@/lib/policy/default-policy";

// Sealing runs beside the request, not in its path, and has a budget of its own (below): the
// request's own statements are what is counted here.
vi.mock("@/lib/audit/seal-audit-chain", async (importOriginal) => ({
  ...(await importOriginal<typeof import("@/lib/audit/seal-audit-chain")>()),
  requestSeal: () => Promise.resolve(),
}));

/** The hot paths' budgets: a change that adds a round trip fails here (docs/BENCHMARKS.md). */
const BUDGET = { allowedRead: 7, pendingWrite: 2, budgetedPendingWrite: 2, sealingPass: 4 };

let db: Db;
let tenant: TestTenant;
let agent: ProposeInput["requester"];
let databaseName: string;
let budgeted: TestTenant;

const t = setUpTestDatabase();
beforeAll(async () => {
  db = createDb(t.url, { max: 4 });
  // Read once per client, not per pass (lib/audit/legacy-boundary.ts).
  await legacyBoundary(db);
  databaseName = databaseOf(t.url);
  tenant = await createTestTenant(t.db);
  const { apiKey } = await createApiKey(t.db, {
    tenantId: tenant.id, name: "counted-agent", allowedTools: ["get_invoice", "refund_invoice"], createdById: tenant.users.admin.id,
  });
  agent = { type: "api_key", apiKeyId: apiKey.id, label: `api:${apiKey.name}` };
  // The default policy with a daily refund budget read first (issue 41), never tripped here.
  const refundRules = DEFAULT_POLICY.tools.refund_invoice.rules;
  budgeted = await createTestTenant(t.db, {
    policy: {
      ...DEFAULT_POLICY,
      tools: {
        ...DEFAULT_POLICY.tools,
        refund_invoice: {
          rules: [
            { id: "refund-budget", effect: "deny", reason: "Over budget", when: 'budget.window("24h").sum("refund_invoice", "amount_minor", "key") + args.amount_minor > 1000000000000' },
            ...refundRules,
          ],
        },
      },
    },
  });
});
afterAll(async () => {
  await db?.$disconnect();
});

const allowedRead = () => proposeAction(db, { tenantId: tenant.id, requester: agent, tool: "get_invoice", args: { invoice_number: "INV-1042" } });
const pendingWrite = () =>
  proposeAction(db, {
    tenantId: tenant.id, requester: agent, tool: "refund_invoice",
    args: { invoice_number: "INV-1044", amount_minor: 150_000, reason: "Duplicate charge" },
  });

describe("round trips of the hot paths", () => {
  it("an allowed read is proposed, executed and recorded within its budget of round trips", async () => {
    expect((await allowedRead()).state).toBe("allowed"); // the tenant's policy and tools are cached after the first call
    let state = "";
    const sent = await statementsOf(databaseName, async () => void (state = (await allowedRead()).state));
    expect(state).toBe("allowed");
    expect(sent, sent.join("\n")).toHaveLength(BUDGET.allowedRead);
  });

  it("a pending write is proposed within its budget of round trips", async () => {
    expect((await pendingWrite()).state).toBe("pending");
    let state = "";
    const sent = await statementsOf(databaseName, async () => void (state = (await pendingWrite()).state));
    expect(state).toBe("pending");
    expect(sent, sent.join("\n")).toHaveLength(BUDGET.pendingWrite);
  });

  it("a pending write under a budget: the TOCTOU read, then the proposal statement that takes the budget's lock and checks its totals", async () => {
    const budgetedWrite = () => proposeAction(db, {
      tenantId: budgeted.id, requester: budgeted.requester, tool: "refund_invoice",
      args: { invoice_number: "INV-1044", amount_minor: 150_000, reason: "Duplicate charge" },
    });
    expect((await budgetedWrite()).state).toBe("pending");
    let state = "";
    const sent = await statementsOf(databaseName, async () => void (state = (await budgetedWrite()).state));
    expect(state).toBe("pending");
    expect(sent, sent.join("\n")).toHaveLength(BUDGET.budgetedPendingWrite);
  });

  it("concurrent writes under one budget share the proposal statement and hold no transaction", async () => {
    const budgetedWrite = () => proposeAction(db, {
      tenantId: budgeted.id, requester: budgeted.requester, tool: "refund_invoice",
      args: { invoice_number: "INV-1044", amount_minor: 150_000, reason: "Duplicate charge" },
    });
    expect((await budgetedWrite()).state).toBe("pending");
    let states: string[] = [];
    const sent = await statementsOf(databaseName, async () => void (states = (await Promise.all(Array.from({ length: 8 }, budgetedWrite))).map((o) => o.state)));
    expect(states).toEqual(Array.from({ length: 8 }, () => "pending"));
    // The budget's locks are held by the proposal statements alone, and a batch shares one.
    expect(sent.filter((s) => s === "BEGIN"), sent.join("\n")).toHaveLength(0);
    const statements = sent.filter((s) => s.startsWith("WITH input AS")).length;
    expect(statements, sent.join("\n")).toBeGreaterThanOrEqual(1);
    expect(statements, sent.join("\n")).toBeLessThanOrEqual(4);
  });

  it("a sealing pass stays within its statement budget, however many events it seals", async () => {
    await sealAllPending(db);
    for (let i = 0; i < 20; i++) await pendingWrite();
    const pending = await t.ownerDb.$queryRaw<Array<{ n: bigint }>>`
      SELECT count(*) AS n FROM "AuditEvent" e WHERE e."tenantId" = ${tenant.id}::uuid AND NOT EXISTS (SELECT 1 FROM "AuditSeal" s WHERE s."eventId" = e.id)`;
    expect(Number(pending[0].n)).toBeGreaterThanOrEqual(20);
    let sealed = 0;
    const sent = await statementsOf(databaseName, async () => void (sealed = await sealAuditChain(db, tenant.id)));
    expect(sealed).toBeGreaterThanOrEqual(20);
    expect(sent.length, sent.join("\n")).toBeLessThanOrEqual(BUDGET.sealingPass);
  });
});
