import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setUpTestDatabase } from "@/tests/fixtures";
import { createTestTenant, type TestTenant } from "@/tests/factories";
import { COUNTER_DESCRIPTION, startCounterServer, type CounterUpstream } from "@/tests/mcp-upstreams";
import type { JsonObject } from "@/lib/canonical/json-value";
import { decideAction } from "@/lib/approvals/decide-action";
import { proposeAction } from "@/lib/approvals/propose-action";
import { isAppError } from "@/lib/errors";
import { approveMcpTool } from "@/lib/mcp/upstream/approve-mcp-tool";
import { listMcpServers } from "@/lib/mcp/upstream/list-mcp-servers";
import { refreshMcpServer } from "@/lib/mcp/upstream/refresh-mcp-server";
import { registerMcpServer } from "@/lib/mcp/upstream/register-mcp-server";
import { removeMcpServer } from "@/lib/mcp/upstream/remove-mcp-server";
import { listReviewQueue } from "@/lib/review/list-review-queue";
import { loadActionDetail } from "@/lib/review/load-action-detail";
import { stateVerdict } from "@/lib/review/state-verdict";

let counter: CounterUpstream;
const TOKEN = "tok-4b8e1d2c7a9f3e5d6c0b1a2f3e4d5c6b";

const t = setUpTestDatabase();
beforeAll(async () => {
  counter = await startCounterServer({ token: TOKEN });
});
afterAll(async () => {
  await counter?.stop();
});

type Change = "unchanged" | "changed" | "deleted";

/** One tool that rests on state: what to propose, and how the state it rests on changes or goes. */
type Case = { name: string; tool: string; args: JsonObject; change: (tenant: TestTenant, serverId: string) => Promise<void>; remove: (tenant: TestTenant, serverId: string) => Promise<void> };

const invoice = (tenant: TestTenant, number: string) => ({ tenantId_number: { tenantId: tenant.id, number } });

const CASES: Case[] = [
  {
    name: "refund_invoice", tool: "refund_invoice", args: { invoice_number: "INV-1043", amount_minor: 10_000, reason: "Goods returned" },
    change: async (tn) => void (await t.db.invoice.update({ where: invoice(tn, "INV-1043"), data: { amountRefundedMinor: 5_000, version: { increment: 1 } } })),
    remove: async (tn) => void (await t.db.invoice.delete({ where: invoice(tn, "INV-1043") })),
  },
  {
    name: "cancel_invoice", tool: "cancel_invoice", args: { invoice_number: "INV-1046", reason: "Issued twice" },
    change: async (tn) => void (await t.db.invoice.update({ where: invoice(tn, "INV-1046"), data: { amountDueMinor: 300_000, version: { increment: 1 } } })),
    remove: async (tn) => void (await t.db.invoice.delete({ where: invoice(tn, "INV-1046") })),
  },
  {
    name: "send_email (about an invoice)", tool: "send_email",
    args: { to: "ap@initech.example", subject: "Your invoice", body: "Hello", invoice_number: "INV-1045" },
    change: async (tn) => void (await t.db.invoice.update({ where: invoice(tn, "INV-1045"), data: { status: "cancelled", amountDueMinor: 0, version: { increment: 1 } } })),
    remove: async (tn) => void (await t.db.invoice.delete({ where: invoice(tn, "INV-1045") })),
  },
  {
    name: "send_email (about a customer)", tool: "send_email",
    args: { to: "ops@hooli.example", subject: "Your account", body: "Hello", customer_ref: "CUST-900" },
    change: async (tn) => void (await t.db.customer.updateMany({ where: { tenantId: tn.id, externalRef: "CUST-900" }, data: { verifiedDomains: [], version: { increment: 1 } } })),
    remove: async (tn) => void (await t.db.customer.deleteMany({ where: { tenantId: tn.id, externalRef: "CUST-900" } })),
  },
  {
    name: "run_python (with a data set)", tool: "run_python", args: { code: "print(1)", language: "python", datasets: ["storage-buckets"] },
    change: async (tn) => void (await t.db.dataset.updateMany({ where: { tenantId: tn.id, name: "storage-buckets" }, data: { content: [{ bucket: "other" }] } })),
    remove: async (tn) => void (await t.db.dataset.deleteMany({ where: { tenantId: tn.id, name: "storage-buckets" } })),
  },
  {
    name: "an upstream MCP tool", tool: "counter__count", args: { by: 1 },
    // A changed definition an admin approved again: another pinned definition.
    change: async (tn, serverId) => {
      counter.setDescription(`${COUNTER_DESCRIPTION} (revised ${tn.slug})`);
      await refreshMcpServer(t.db, { tenantId: tn.id, admin: tn.users.admin.member, serverId });
      await approveCounter(tn);
    },
    remove: async (tn, serverId) => void (await removeMcpServer(t.db, { tenantId: tn.id, admin: tn.users.admin.member, serverId })),
  },
];

async function approveCounter(tenant: TestTenant) {
  const view = (await listMcpServers(t.db, tenant.id)).find((s) => s.name === "counter")?.tools.find((x) => x.name === "count");
  if (!view?.pendingHash) throw new Error("the counter's tool has nothing to approve");
  await approveMcpTool(t.db, { tenantId: tenant.id, admin: tenant.users.admin.member, toolId: view.id, definitionHash: view.pendingHash });
}

/** A tenant whose every case can be proposed: the demo data, a customer with no invoices, and the counter server approved. */
async function tenantForCases(): Promise<{ tenant: TestTenant; serverId: string }> {
  const tenant = await createTestTenant(t.db);
  await t.db.customer.create({
    data: { tenantId: tenant.id, externalRef: "CUST-900", name: "Hooli", email: "ops@hooli.example", verifiedDomains: ["hooli.example"] },
  });
  const { serverId } = await registerMcpServer(t.db, {
    tenantId: tenant.id, admin: tenant.users.admin.member,
    server: { name: "counter", transport: "http", url: counter.url, secrets: [{ name: "Authorization", value: `Bearer ${TOKEN}` }] },
  });
  await approveCounter(tenant);
  return { tenant, serverId };
}

/** What a vote to approve says: "changed" when refused for the state, "unchanged" when it counts. */
async function voteVerdict(tenant: TestTenant, actionId: string, payloadHash: string): Promise<"changed" | "unchanged"> {
  try {
    await decideAction(t.db, { tenantId: tenant.id, actionId, reviewer: tenant.users.reviewer.member, verdict: "approve", payloadHash });
    return "unchanged";
  } catch (error) {
    if (isAppError(error) && error.code === "state_changed") return "changed";
    throw error;
  }
}

describe("the state shown to a reviewer and the vote's check of it", () => {
  it.each<Change>(["unchanged", "changed", "deleted"])("agree for every tool that rests on state when it is %s", async (change) => {
    const { tenant, serverId } = await tenantForCases();
    const proposed = [];
    for (const c of CASES) {
      const outcome = await proposeAction(t.db, { tenantId: tenant.id, requester: tenant.requester, tool: c.tool, args: c.args });
      expect(outcome.state, c.name).toBe("pending");
      if (outcome.state === "pending") proposed.push({ c, actionId: outcome.actionId, payloadHash: outcome.payloadHash });
    }
    for (const { c } of proposed) {
      if (change === "changed") await c.change(tenant, serverId);
      if (change === "deleted") await c.remove(tenant, serverId);
    }

    const reviewer = { tenantId: tenant.id, userId: tenant.users.reviewer.id, roles: tenant.users.reviewer.roles };
    const queue = await listReviewQueue(t.db, reviewer);
    const expected = change === "unchanged" ? "unchanged" : "changed";
    for (const { c, actionId, payloadHash } of proposed) {
      const detail = await loadActionDetail(t.db, reviewer, actionId);
      const shown = stateVerdict(detail!.stateNow);
      const listed = queue.items.find((item) => item.id === actionId)!.stateChanges === null ? "unchanged" : "changed";
      const voted = await voteVerdict(tenant, actionId, payloadHash);
      expect({ tool: c.name, shown, listed, voted }).toEqual({ tool: c.name, shown: expected, listed: expected, voted: expected });
    }
  });
});
