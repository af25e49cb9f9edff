import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestTenant } from "@/tests/factories";
import { setUpTestDatabase } from "@/tests/fixtures";
import { createDb, type Db } from "@/lib/db/client";
import { decideAction } from "@/lib/approvals/decide-action";
import { executeAction } from "@/lib/approvals/execute-action";
import { proposeAction } from "@/lib/approvals/propose-action";
import { sealAllPending } from "@/lib/audit/seal-audit-chain";
import { expireDueActions } from "@/lib/approvals/expire-actions";
import { recoverStaleExecutions } from "@/lib/approvals/recover-executions";
import { pumpReviewerEmails } from "@/lib/notifications/reviewer-email-channel";
import { pumpSlack } from "@/lib/slack/slack-notice-channel";
import { pumpWebhooks } from "@/lib/webhooks/webhook-channel";
import { listReviewQueue } from "@/lib/review/list-review-queue";
import { loadActionDetail } from "@/lib/review/load-action-detail";
import { queueNeighbours } from "@/lib/review/queue-neighbours";

/**
 * Tables that grow with every action: a sequential scan of one on the approval path gets slower
 * with every action ever proposed (in bench:api each execution once read all of "Snapshot").
 */
const GROWING = ["Action", "ActionRevision", "Snapshot", "Decision", "Execution", "AuditEvent", "AuditSeal"];

type PlanNode = {
  "Node Type"?: string; "Relation Name"?: string; "Index Name"?: string; "Index Cond"?: string; Plans?: PlanNode[];
};

/**
 * The growing tables a plan reads whole: by a sequential scan, or by an index scan that does not
 * bound the index's leading column (which walks all of it).
 */
function wholeReadsOf(node: PlanNode, leadingColumn: Map<string, string>, into: string[] = []): string[] {
  const table = node["Relation Name"];
  if (table && GROWING.includes(table)) {
    if (node["Node Type"] === "Seq Scan") into.push(`${table} (sequential scan)`);
    const index = node["Index Name"];
    if (index && /Index/.test(node["Node Type"] ?? "")) {
      const column = leadingColumn.get(index) ?? "?";
      const bounded = new RegExp(`(?:^|[(\\s.])"?${column}"?\\s*(?:=|<|>|<=|>=)`).test(node["Index Cond"] ?? "");
      if (!bounded) into.push(`${table} (all of index ${index}${node["Index Cond"] ? `, bounding only ${node["Index Cond"]}` : ""})`);
    }
  }
  for (const child of node.Plans ?? []) wholeReadsOf(child, leadingColumn, into);
  return into;
}

type Query = (this: pg.Client, ...args: unknown[]) => unknown;

/** The connections of `db` below: opened with sequential scans off. */
const isWatched = (client: pg.Client) =>
  String((client as unknown as { connectionParameters?: { options?: string } }).connectionParameters?.options ?? "").includes("enable_seqscan=off");

/**
 * While `fn` runs, every statement this process's pg clients send is first explained on the same
 * connection (inside its transaction, never executed) with `enable_seqscan=off`: a sequential scan
 * left in a plan is one no index could replace.
 */
async function watchPlans(leadingColumn: Map<string, string>, fn: () => Promise<void>): Promise<Array<{ text: string; reads: string[] }>> {
  const plans: Array<{ text: string; reads: string[] }> = [];
  const prototype = pg.Client.prototype as unknown as { query: Query };
  const original = prototype.query;
  prototype.query = function (this: pg.Client, ...args: unknown[]) {
    // Only the watched pool's connections: the test database's own pool also serves background
    // work (the group-commit sealer) that may run inside this window on small, seq-scanned tables.
    if (!isWatched(this)) return original.apply(this, args);
    const config = args[0] as string | { text?: string; values?: unknown[] } | undefined;
    const text = typeof config === "string" ? config : config?.text;
    if (text && /^\s*(?:WITH|SELECT|UPDATE|INSERT|DELETE)\b/i.test(text)) {
      const values = typeof config === "object" ? config.values : Array.isArray(args[1]) ? (args[1] as unknown[]) : undefined;
      const entry = { text, reads: [] as string[] };
      plans.push(entry);
      // Explained first on the same connection, so inside the statement's transaction; then the statement.
      const explained = original.call(this, { text: `EXPLAIN (FORMAT JSON) ${text}`, values }) as Promise<pg.QueryResult<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>>;
      return explained.then(
        (result) => void (entry.reads = wholeReadsOf(result.rows[0]["QUERY PLAN"][0].Plan, leadingColumn)),
        (error: Error) => void (entry.reads = [`(not explained: ${error.message})`]),
      ).then(() => original.apply(this, args));
    }
    return original.apply(this, args);
  };
  try {
    await fn();
  } finally {
    prototype.query = original;
  }
  return plans;
}

/** Each index's leading column, by index name. */
async function leadingColumns(): Promise<Map<string, string>> {
  const indexes = await t.ownerDb.$queryRaw<Array<{ index: string; column: string }>>`
    SELECT i.relname AS index, a.attname AS column FROM pg_index x
    JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = x.indkey[0]`;
  return new Map(indexes.map((row) => [row.index, row.column]));
}

/** The statements that read a growing table whole, with what they read. */
const wholeReads = (plans: Array<{ text: string; reads: string[] }>) =>
  plans.filter((plan) => plan.reads.length > 0).map((plan) => `${plan.reads.join(", ")}: ${plan.text.replace(/\s+/g, " ").slice(0, 160)}`);

const t = setUpTestDatabase();
let db: Db;

beforeAll(async () => {
  const url = new URL(t.url);
  url.searchParams.set("options", "-c enable_seqscan=off");
  db = createDb(url.toString(), { max: 4 });
});
afterAll(async () => {
  await db?.$disconnect();
});

describe("index use: statements whose cost must not grow with history", () => {
  it("proposing, voting, executing and sealing read no growing table whole", async () => {
    const tenant = await createTestTenant(t.db);
    const actor = { type: "user" as const, id: tenant.users.requester.id, label: tenant.users.requester.email };
    const plans = await watchPlans(await leadingColumns(), async () => {
      // Above the two-approver threshold: two votes, then the execution and its record.
      const proposed = await proposeAction(db, {
        tenantId: tenant.id, requester: tenant.requester, tool: "refund_invoice",
        args: { invoice_number: "INV-1044", amount_minor: 150_000, reason: "Duplicate charge" }, reason: "Customer asked",
      });
      if (proposed.state !== "pending") throw new Error(`expected pending, got ${proposed.state}`);
      for (const reviewer of [tenant.users.reviewer, tenant.users.reviewer2]) {
        await decideAction(db, { tenantId: tenant.id, actionId: proposed.actionId, payloadHash: proposed.payloadHash, verdict: "approve", note: "ok", reviewer: reviewer.member });
      }
      const outcome = await executeAction(db, { tenantId: tenant.id, actionId: proposed.actionId, payloadHash: proposed.payloadHash, executor: { type: "requester" }, actor });
      expect(outcome.state).toBe("succeeded");
      // An allowed read runs at once.
      const read = await proposeAction(db, { tenantId: tenant.id, requester: tenant.requester, tool: "get_invoice", args: { invoice_number: "INV-1042" }, reason: "Look" });
      expect(read.state).toBe("allowed");
      await sealAllPending(db);
    });
    const explained = plans.filter((plan) => plan.reads.length > 0 || plan.text.includes('"Snapshot"'));
    expect(plans.length).toBeGreaterThan(10);
    expect(explained.some((plan) => plan.text.includes('"Snapshot"'))).toBe(true);
    expect(plans.filter((plan) => plan.reads.some((read) => read.startsWith("(not explained")))).toEqual([]);
    expect(wholeReads(plans)).toEqual([]);
  });

  it("the pumps every console runs in the background read no growing table whole", async () => {
    const tenant = await createTestTenant(t.db);
    for (let i = 0; i < 3; i++) {
      await proposeAction(t.db, {
        tenantId: tenant.id, requester: tenant.requester, tool: "refund_invoice",
        args: { invoice_number: "INV-1044", amount_minor: 5_000 + i, reason: "Duplicate charge" }, reason: "Customer asked",
      });
    }
    await sealAllPending(t.db);
    const plans = await watchPlans(await leadingColumns(), async () => {
      await pumpReviewerEmails(db, { workerId: "index-use" });
      await pumpWebhooks(db, { workerId: "index-use" });
      await pumpSlack(db, { workerId: "index-use" });
      await expireDueActions(db);
      await recoverStaleExecutions(db);
    });
    expect(plans.length).toBeGreaterThan(5);
    expect(plans.filter((plan) => plan.reads.some((read) => read.startsWith("(not explained")))).toEqual([]);
    expect(wholeReads(plans)).toEqual([]);
  });

  it("the review queue and the action page read no growing table whole", async () => {
    const tenant = await createTestTenant(t.db);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const proposed = await proposeAction(t.db, {
        tenantId: tenant.id, requester: tenant.requester, tool: "refund_invoice",
        args: { invoice_number: "INV-1044", amount_minor: 5_000 + i, reason: "Duplicate charge" }, reason: "Customer asked",
      });
      ids.push(proposed!.actionId);
    }
    const reviewer = { tenantId: tenant.id, userId: tenant.users.reviewer.id, roles: tenant.users.reviewer.roles };
    const plans = await watchPlans(await leadingColumns(), async () => {
      const queue = await listReviewQueue(db, reviewer);
      expect(queue.items.length).toBe(3);
      expect(await loadActionDetail(db, reviewer, ids[1])).not.toBeNull();
      expect((await queueNeighbours(db, reviewer, ids[1])).next).not.toBeNull();
    });
    expect(plans.length).toBeGreaterThan(3);
    expect(plans.filter((plan) => plan.reads.some((read) => read.startsWith("(not explained")))).toEqual([]);
    expect(wholeReads(plans)).toEqual([]);
  });
});
