import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestTenant, type TestTenant } from "@/tests/factories";
import { expectEventsToFitTheirSchemas } from "@/tests/audit-schemas";
import { refusal } from "@/tests/refusal";
import { setUpTestDatabase } from "@/tests/fixtures";
import { createDb } from "@/lib/db/client";
import { decideAction } from "@/lib/approvals/decide-action";
import { proposeAction } from "@/lib/approvals/propose-action";
import { sealAllPending } from "@/lib/audit/seal-audit-chain";
import { leaseOutbox } from "@/lib/db/statements/outbox/lease-outbox";
import { isPrivateAddress } from "@/lib/webhooks/destination-guard";
import { redeliverWebhookDelivery, removeWebhookEndpoint, rotateWebhookEndpointSecret } from "@/lib/webhooks/manage-webhook-endpoint";
import { registerWebhookEndpoint } from "@/lib/webhooks/register-webhook-endpoint";
import { listWebhooks } from "@/lib/webhooks/list-webhooks";
import { pumpWebhooks } from "@/lib/webhooks/webhook-channel";
import { retryDelayMs } from "@/lib/outbox/retry-delay";

type Received = { headers: IncomingHttpHeaders; body: string; answered: number };

/** A real HTTP receiver on 127.0.0.1 whose answers are scripted per request (then 204). */
async function startReceiver(answers: number[] = []) {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => (body += chunk));
    request.on("end", () => {
      const answered = answers[received.length] ?? 204;
      received.push({ headers: request.headers, body, answered });
      response.statusCode = answered;
      response.end(answered >= 400 ? "receiver down" : "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const t = setUpTestDatabase();
const receivers: Array<{ close: () => Promise<void> }> = [];

beforeAll(async () => {
  vi.stubEnv("WEBHOOK_RETRY_BASE_MS", "20");
  // Far above a local receiver's answer even on a loaded machine: a send that timed out would be
  // retried and the receiver would see one request more than the test scripts.
  vi.stubEnv("WEBHOOK_TIMEOUT_MS", "30000");
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await Promise.all(receivers.map((r) => r.close()));
});

const adminOf = (tenant: TestTenant) => ({ type: "user" as const, id: tenant.users.admin.id, label: tenant.users.admin.email });

async function receiverFor(tenant: TestTenant, answers: number[] = [], events = ["action.pending", "action.decided", "action.executed"]) {
  const receiver = await startReceiver(answers);
  receivers.push(receiver);
  const { id, secret } = await registerWebhookEndpoint(t.db, { tenantId: tenant.id, actor: adminOf(tenant), fields: { url: receiver.url, events, allowPrivate: true } });
  return { ...receiver, id, secret };
}

const refund = { invoice_number: "INV-1044", amount_minor: 5_000, reason: "Duplicate charge" };

async function pendingRefund(tenant: TestTenant) {
  const proposed = await proposeAction(t.db, { tenantId: tenant.id, requester: tenant.requester, tool: "refund_invoice", args: refund, reason: "Customer asked" });
  if (proposed.state !== "pending") throw new Error(`expected pending, got ${proposed.state}`);
  return proposed;
}

/** The endpoint's delivery as the admin's delivery log shows it. */
async function deliveryTo(tenant: TestTenant, endpointId: string) {
  const delivery = (await listWebhooks(t.db, tenant.id)).deliveries.find((d) => d.endpointId === endpointId);
  if (!delivery) throw new Error(`no delivery to ${endpointId}`);
  return delivery;
}

/** Pumps the outbox (as a worker would) until nothing is due or added, waiting out retry delays. */
async function pumpUntilQuiet(workerId = "worker-a", db = t.db, rounds = 40) {
  for (let i = 0; i < rounds; i++) {
    await sealAllPending(db);
    await pumpWebhooks(db, { workerId });
    const due = await t.db.outboxDelivery.count({ where: { channel: "webhook", status: "pending" } });
    if (due === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 60));
  }
  throw new Error("the outbox did not settle");
}

describe("signed webhooks", () => {
  it("a receiver that fails twice then succeeds gets exactly one accepted delivery per event, each validly signed (Standard Webhooks)", async () => {
    const tenant = await createTestTenant(t.db);
    const hook = await receiverFor(tenant, [500, 503]);
    const proposed = await pendingRefund(tenant);
    await pumpUntilQuiet();

    expect(hook.received.map((r) => r.answered)).toEqual([500, 503, 204]);
    const ids = new Set(hook.received.map((r) => r.headers["webhook-id"]));
    expect(ids.size).toBe(1); // one message, retried under one id
    const verifier = new Webhook(hook.secret);
    for (const { body, headers } of hook.received) {
      const payload = verifier.verify(body, headers as Record<string, string>) as { type: string; data: Record<string, unknown> };
      expect(payload).toMatchObject({ type: "action.pending", data: { actionId: proposed.actionId, tool: "refund_invoice", status: "pending", tenant: tenant.slug } });
      expect(String(payload.data.url)).toMatch(new RegExp(`/actions/${proposed.actionId}$`));
      // What the console sends is a notice, never the arguments.
      expect(body).not.toContain("Duplicate charge");
    }
    const delivery = await deliveryTo(tenant, hook.id);
    expect(delivery).toMatchObject({ status: "delivered", attempts: 3, lastStatus: 204, eventType: "action.pending" });

    // A tampered body or a signature from another secret does not verify.
    const [first] = hook.received;
    expect(() => verifier.verify(first.body.replace("pending", "approved"), first.headers as Record<string, string>)).toThrow();
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString("base64")}`).verify(first.body, first.headers as Record<string, string>)).toThrow();
  });

  it("announces what the endpoint subscribed to, as it happens: pending, decided, executed; never another tenant's events", async () => {
    const [tenant, other] = [await createTestTenant(t.db), await createTestTenant(t.db)];
    const hook = await receiverFor(tenant);
    const proposed = await pendingRefund(tenant);
    await pendingRefund(other);
    await decideAction(t.db, { tenantId: tenant.id, actionId: proposed.actionId, payloadHash: proposed.payloadHash, verdict: "approve", note: "ok", reviewer: tenant.users.reviewer.member });
    await pumpUntilQuiet();
    // Deliveries may arrive in any order (they are sent concurrently); auditSeq orders them.
    const payloads = hook.received
      .map((r) => JSON.parse(r.body) as { type: string; data: { actionId: string; auditSeq: number; verdict?: string; status: string } })
      .sort((x, y) => x.data.auditSeq - y.data.auditSeq);
    expect(payloads.map((p) => p.type)).toEqual(["action.pending", "action.decided"]);
    expect(payloads.every((p) => p.data.actionId === proposed.actionId)).toBe(true);
    expect(payloads[1].data).toMatchObject({ verdict: "approve", status: "approved" });
  });

  it("loses nothing when the console stops mid-retry: another process picks the delivery up once its lease lapses", async () => {
    const tenant = await createTestTenant(t.db);
    const hook = await receiverFor(tenant, [500]);
    await pendingRefund(tenant);
    await sealAllPending(t.db);
    // Process A: one failed attempt, then it takes the delivery again and dies holding it.
    await pumpWebhooks(t.db, { workerId: "process-a" });
    expect(hook.received).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, retryDelayMs(1, 20, () => 1) + 20));
    // A lease no machine's slowness lapses by chance (a 1 s one could lapse before B looked, on a
    // loaded machine); it is made to lapse below, as time would.
    const [held] = (await leaseOutbox(t.db, { channel: "webhook", workerId: "process-a", leaseSeconds: 600, limit: 10, now: null, afterCrash: "retry" }))
      .map((row) => ({ ...row, endpointId: row.subscriptionId }));
    expect(held?.endpointId).toBe(hook.id);
    // Process B, a fresh connection pool, sends nothing while A's lease holds, then delivers.
    const restarted = createDb(t.url, { max: 2 });
    try {
      await pumpWebhooks(restarted, { workerId: "process-b" });
      expect(hook.received).toHaveLength(1);
      await t.ownerDb.outboxDelivery.update({ where: { id: held.id }, data: { leaseExpiresAt: new Date(Date.now() - 60_000) } });
      await pumpUntilQuiet("process-b", restarted);
    } finally {
      await restarted.$disconnect();
    }
    expect(hook.received.map((r) => r.answered)).toEqual([500, 204]);
    expect((await deliveryTo(tenant, hook.id)).status).toBe("delivered");
  });

  it("gives up once its retry window has closed, sends nothing more, and an admin can send it again under the same webhook-id", async () => {
    const tenant = await createTestTenant(t.db);
    const hook = await receiverFor(tenant, [500, 500]);
    await pendingRefund(tenant);
    await sealAllPending(t.db);
    await pumpWebhooks(t.db, { workerId: "a" });
    // The window closes before the next attempt: its failure is final.
    const past = new Date(Date.now() - 1000);
    await t.db.outboxDelivery.updateMany({ where: { subscriptionId: hook.id }, data: { giveUpAt: past, nextAttemptAt: past } });
    await pumpWebhooks(t.db, { workerId: "a" });
    const failed = await deliveryTo(tenant, hook.id);
    expect(failed).toMatchObject({ status: "failed", attempts: 2, lastStatus: 500 });
    expect(failed.lastError).toContain("receiver down");
    await pumpWebhooks(t.db, { workerId: "a" });
    expect(hook.received).toHaveLength(2);

    await redeliverWebhookDelivery(t.db, { tenantId: tenant.id, id: failed.id, actor: adminOf(tenant) });
    await pumpUntilQuiet();
    expect(hook.received.map((r) => r.answered)).toEqual([500, 500, 204]);
    expect(new Set(hook.received.map((r) => r.headers["webhook-id"])).size).toBe(1);
    expect(await t.db.auditEvent.count({ where: { tenantId: tenant.id, type: "webhook.redelivered" } })).toBe(1);
    // A delivered message can be sent again too; another tenant's delivery is not found.
    await redeliverWebhookDelivery(t.db, { tenantId: tenant.id, id: failed.id, actor: adminOf(tenant) });
    const other = await createTestTenant(t.db);
    expect(await refusal(redeliverWebhookDelivery(t.db, { tenantId: other.id, id: failed.id, actor: adminOf(other) }))).toMatchObject({ code: "not_found" });
  });

  it("refuses endpoints on loopback, private and link-local addresses unless an admin allows the host, and non-http URLs; each refusal audited", async () => {
    const tenant = await createTestTenant(t.db);
    const receiver = await startReceiver();
    receivers.push(receiver);
    const register = (url: string, allowPrivate = false) =>
      registerWebhookEndpoint(t.db, { tenantId: tenant.id, actor: adminOf(tenant), fields: { url, events: ["action.pending"], allowPrivate } });
    for (const url of [receiver.url, "http://localhost:9/x", "http://169.254.169.254/latest/meta-data", "http://[::1]:9/", "http://10.1.2.3/", "http://[::ffff:127.0.0.1]/"]) {
      const error = await refusal(register(url));
      expect(error, url).toMatchObject({ code: "webhook_destination_refused", status: 400 });
      expect(error.message).toMatch(/loopback, private or link-local/);
    }
    for (const url of ["ftp://example.com/x", "file:///etc/passwd", "https://user:pw@example.com/", "not a url"]) {
      expect(await refusal(register(url)), url).toMatchObject({ status: 400 });
    }
    expect(await t.db.webhookEndpoint.count({ where: { tenantId: tenant.id } })).toBe(0);
    expect(await t.db.auditEvent.count({ where: { tenantId: tenant.id, type: "webhook.refused" } })).toBe(10);
    // An admin's allowance alone is not enough: the operator lists the host too (WEBHOOK_PRIVATE_HOSTS).
    vi.stubEnv("WEBHOOK_PRIVATE_HOSTS", "");
    const notListed = await refusal(register(receiver.url, true));
    expect(notListed).toMatchObject({ code: "webhook_destination_refused" });
    expect(notListed.message).toContain("WEBHOOK_PRIVATE_HOSTS");
    expect((await refusal(register("http://169.254.169.254/latest/meta-data", true))).message).toContain("WEBHOOK_PRIVATE_HOSTS");
    vi.stubEnv("WEBHOOK_PRIVATE_HOSTS", "127.0.0.1");
    expect(await t.db.webhookEndpoint.count({ where: { tenantId: tenant.id } })).toBe(0);
    // Explicitly allowed by both, the same receiver is accepted.
    await register(receiver.url, true);
    expect(await t.db.webhookEndpoint.count({ where: { tenantId: tenant.id } })).toBe(1);
    await expectEventsToFitTheirSchemas(t.db, tenant.id);
  });

  it("judges addresses as the network does: mapped IPv4, metadata, CGNAT and unique-local are private; public ones are not", () => {
    for (const address of ["127.0.0.1", "::1", "::ffff:10.0.0.1", "169.254.169.254", "100.64.0.1", "fd00::1", "fe80::1", "0.0.0.0", "192.168.1.1"]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
    // IPv6 that a translator or relay turns into a private IPv4 address: NAT64 (well-known and
    // local-use prefixes), 6to4, IPv4-compatible and -translated, Teredo; and a zoned link-local one.
    for (const address of [
      "64:ff9b::a9fe:a9fe", "64:ff9b::127.0.0.1", "64:ff9b:1::5db8:d822", "2002:7f00:1::1", "2002:a9fe:a9fe::", "::127.0.0.1", "::a00:1",
      "::ffff:0:a00:1", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "fe80::1%eth0", "fec0::1",
    ]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
    for (const address of ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946", "::ffff:93.184.216.34", "64:ff9b::5db8:d822", "2002:5db8:d822::1"]) {
      expect(isPrivateAddress(address), address).toBe(false);
    }
  });

  it("of two rotations at once, the second keeps the first's new secret as its previous one: both secrets handed out sign", async () => {
    const tenant = await createTestTenant(t.db);
    const hook = await receiverFor(tenant);
    const rotate = () => rotateWebhookEndpointSecret(t.db, { tenantId: tenant.id, id: hook.id, actor: adminOf(tenant) });
    const [first, second] = await Promise.all([rotate(), rotate()]);
    await pendingRefund(tenant);
    await pumpUntilQuiet();
    const [{ body, headers }] = hook.received;
    const valid = [first.secret, second.secret].filter((secret) => {
      try {
        new Webhook(secret).verify(body, headers as Record<string, string>);
        return true;
      } catch {
        return false;
      }
    });
    expect(valid).toHaveLength(2);
    expect(await t.db.auditEvent.count({ where: { tenantId: tenant.id, type: "webhook.secret_rotated" } })).toBe(2);
  });

  it("signs with the old and the new secret during a rotation, so receivers verify with either", async () => {
    const tenant = await createTestTenant(t.db);
    const hook = await receiverFor(tenant);
    const { secret: next, previousValidUntil } = await rotateWebhookEndpointSecret(t.db, { tenantId: tenant.id, id: hook.id, actor: adminOf(tenant) });
    // What the admin is told is what the outbox signs by, and what the audit log records: the database's.
    const stored = await t.db.webhookEndpoint.findUniqueOrThrow({ where: { id: hook.id } });
    expect(previousValidUntil).toEqual(stored.previousSecretUntil);
    const event = await t.db.auditEvent.findFirstOrThrow({ where: { tenantId: tenant.id, type: "webhook.secret_rotated" } });
    expect(event.data).toMatchObject({ previousValidUntil: stored.previousSecretUntil!.toISOString() });
    await pendingRefund(tenant);
    await pumpUntilQuiet();
    const [{ body, headers }] = hook.received;
    expect(String(headers["webhook-signature"]).split(" ")).toHaveLength(2);
    for (const secret of [hook.secret, next]) expect(() => new Webhook(secret).verify(body, headers as Record<string, string>)).not.toThrow();
  });
});

describe("webhooks managed by someone who is no longer an admin", () => {
  it("registers, rotates, redelivers and removes nothing (refused 403, audited as webhook.refused not_admin)", async () => {
    const tenant = await createTestTenant(t.db);
    const hook = await receiverFor(tenant);
    await pendingRefund(tenant);
    await pumpUntilQuiet();
    const endpointBefore = await t.db.webhookEndpoint.findUniqueOrThrow({ where: { id: hook.id } });
    const delivery = await deliveryTo(tenant, hook.id);
    expect(delivery.status).toBe("delivered");
    // The reviewer stands for an admin demoted after their request passed the boundary.
    const formerAdmin = { type: "user" as const, id: tenant.users.reviewer.id, label: tenant.users.reviewer.email };
    const forbidden = { code: "forbidden", status: 403, message: "Only admins may manage webhooks, and you are no longer an admin here." };

    expect(await refusal(registerWebhookEndpoint(t.db, { tenantId: tenant.id, actor: formerAdmin, fields: { url: hook.url, events: ["action.pending"], allowPrivate: true } })))
      .toMatchObject(forbidden);
    expect(await refusal(rotateWebhookEndpointSecret(t.db, { tenantId: tenant.id, id: hook.id, actor: formerAdmin }))).toMatchObject(forbidden);
    expect(await refusal(redeliverWebhookDelivery(t.db, { tenantId: tenant.id, id: delivery.id, actor: formerAdmin }))).toMatchObject(forbidden);
    expect(await refusal(removeWebhookEndpoint(t.db, { tenantId: tenant.id, id: hook.id, actor: formerAdmin }))).toMatchObject(forbidden);

    expect(await t.db.webhookEndpoint.findMany({ where: { tenantId: tenant.id } })).toEqual([endpointBefore]);
    expect(await deliveryTo(tenant, hook.id)).toEqual(delivery);
    expect(await t.db.auditEvent.count({ where: { tenantId: tenant.id, type: { in: ["webhook.secret_rotated", "webhook.redelivered", "webhook.endpoint_removed"] } } })).toBe(0);
    expect(await t.db.auditEvent.count({ where: { tenantId: tenant.id, type: "webhook.endpoint_created" } })).toBe(1);
    const refused = await t.db.auditEvent.findMany({ where: { tenantId: tenant.id, type: "webhook.refused" }, orderBy: { id: "asc" } });
    expect(refused.map((e) => ({ actorId: e.actorId, data: e.data }))).toEqual(
      ["register", "rotate", "redeliver", "remove"].map((operation) => ({ actorId: formerAdmin.id, data: { url: endpointBefore.url, reason: "not_admin", operation } })),
    );
    await expectEventsToFitTheirSchemas(t.db, tenant.id);
  });
});
