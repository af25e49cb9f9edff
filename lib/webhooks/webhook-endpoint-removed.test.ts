import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestTenant } from "@/tests/factories";
import { setUpTestDatabase } from "@/tests/fixtures";
import { proposeAction } from "@/lib/approvals/propose-action";
import { sealAllPending } from "@/lib/audit/seal-audit-chain";
import { removeWebhookEndpoint } from "@/lib/webhooks/manage-webhook-endpoint";
import { registerWebhookEndpoint } from "@/lib/webhooks/register-webhook-endpoint";
import { pumpWebhooks } from "@/lib/webhooks/webhook-channel";

// A send's destination check can be held, so the test acts between the lease and the send.
const gate = vi.hoisted(() => ({ armed: null as null | { reached: () => void; release: Promise<void> } }));
vi.mock("@/lib/webhooks/destination-guard", async (importOriginal) => {
  const original = await importOriginal<typeof import("@/lib/webhooks/destination-guard")>();
  return {
    ...original,
    checkDestination: async (...args: Parameters<typeof original.checkDestination>) => {
      const held = gate.armed;
      gate.armed = null;
      if (held) {
        held.reached();
        await held.release;
      }
      return original.checkDestination(...args);
    },
  };
});

const t = setUpTestDatabase();

beforeAll(async () => {
  vi.stubEnv("WEBHOOK_PRIVATE_HOSTS", "127.0.0.1");
});
afterAll(async () => {
  vi.unstubAllEnvs();
});

describe("a webhook endpoint removed while its delivery is under way", () => {
  it("is not sent to: the send's claim re-checks the endpoint after the delivery was leased", async () => {
    const received: string[] = [];
    const receiver = createServer((request, response) => {
      received.push(request.url ?? "");
      response.statusCode = 204;
      response.end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    try {
      const tenant = await createTestTenant(t.db);
      const admin = { type: "user" as const, id: tenant.users.admin.id, label: tenant.users.admin.email };
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
      const { id } = await registerWebhookEndpoint(t.db, { tenantId: tenant.id, actor: admin, fields: { url, events: ["action.pending"], allowPrivate: true } });
      const proposed = await proposeAction(t.db, {
        tenantId: tenant.id, requester: tenant.requester, tool: "refund_invoice",
        args: { invoice_number: "INV-1044", amount_minor: 5_000, reason: "Duplicate charge" }, reason: "Customer asked",
      });
      expect(proposed.state).toBe("pending");
      await sealAllPending(t.db);

      let release = () => {};
      const reached = new Promise<void>((resolve) => {
        gate.armed = { reached: resolve, release: new Promise<void>((go) => (release = go)) };
      });
      const pumping = pumpWebhooks(t.db, { workerId: "worker-a" });
      await reached; // leased, its destination being checked
      await removeWebhookEndpoint(t.db, { tenantId: tenant.id, id, actor: admin });
      release();
      await pumping;
      await pumpWebhooks(t.db, { workerId: "worker-a" });
      expect(received).toEqual([]);
      expect(await t.db.outboxDelivery.count({ where: { tenantId: tenant.id } })).toBe(0);
    } finally {
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });
});
