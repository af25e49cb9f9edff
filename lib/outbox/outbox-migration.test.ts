import { randomBytes, randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { Client } from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readEnv } from "@/lib/env";

// The migration that moved the four outboxes into one, applied over rows of the old tables.
const MIGRATIONS = path.join(process.cwd(), "prisma", "migrations");
const OUTBOX = "20261240000000_outbox_channels";
const migration = (name: string) => readFileSync(path.join(MIGRATIONS, name, "migration.sql"), "utf8");

let client: Client;
let drop: () => Promise<void>;

beforeAll(async () => {
  const adminUrl = readEnv("COUNTERSIGN_TEST_PG");
  if (!adminUrl) throw new Error("COUNTERSIGN_TEST_PG is not set: run tests through vitest (global setup)");
  const name = `m_${randomBytes(6).toString("hex")}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE template0`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  client = new Client({ connectionString: url.toString() });
  await client.connect();
  for (const earlier of readdirSync(MIGRATIONS).filter((n) => /^\d/.test(n) && n < OUTBOX).sort()) await client.query(migration(earlier));
  drop = async () => {
    await client.end();
    const a = new Client({ connectionString: adminUrl });
    await a.connect();
    await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await a.end();
  };
});
afterAll(async () => drop?.());

describe("the migration to one outbox", () => {
  it("keeps every queued message meaningful: pending stays pending, failed stays failed and may be sent again, cursors where they were", async () => {
    const [tenant, user, endpoint, action] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const ids = { delivered: randomUUID(), failedHook: randomUUID(), message: randomUUID(), notice: randomUUID(), skippedNotice: randomUUID(), digest: randomUUID(), email: randomUUID() };
    await client.query(`
      INSERT INTO "Tenant" (id, slug, name) VALUES ('${tenant}', 't-migrated', 'Migrated');
      INSERT INTO "User" (id, email, name) VALUES ('${user}', 'r@migrated.test', 'r');
      INSERT INTO "WebhookEndpoint" (id, "tenantId", url, events, secrets, "cursorSeq") VALUES ('${endpoint}', '${tenant}', 'https://hooks.example/x', '{action.pending}', 's', 41);
      INSERT INTO "WebhookDelivery" (id, "tenantId", "endpointId", "messageId", "eventType", "auditSeq", payload, status, attempts, "giveUpAt", "lastStatus", "lastError", "deliveredAt")
      VALUES ('${ids.delivered}', '${tenant}', '${endpoint}', 'msg_1', 'action.pending', 7, '{"type":"action.pending","data":{"actionId":"${action}"}}', 'delivered', 1, now(), 204, NULL, now()),
        ('${ids.failedHook}', '${tenant}', '${endpoint}', 'msg_2', 'action.decided', 8, '{"type":"action.decided","data":{}}', 'failed', 9, now(), 500, 'receiver down', NULL);
      INSERT INTO "SlackIntegration" ("tenantId", secrets, channel, "cursorSeq") VALUES ('${tenant}', 's', 'C0APPROVALS', 33);
      INSERT INTO "SlackMessage" (id, "tenantId", "actionId", channel, ts, "wantedSeq", "sentSeq", status, "giveUpAt", "shownRevision", "shownStatus")
      VALUES ('${ids.message}', '${tenant}', '${action}', 'C0APPROVALS', '1700000000.000100', 3, 2, 'pending', now() + interval '1 day', 1, 'pending');
      INSERT INTO "SlackNotice" (id, "tenantId", "actionId", "auditSeq", revision, channel, role, "afterSeconds", ts, status, attempts, "giveUpAt", "lastError")
      VALUES ('${ids.notice}', '${tenant}', '${action}', 12, 1, 'C0ESCALATE', 'admin', 1800, NULL, 'failed', 5, now(), 'channel_not_found'),
        ('${ids.skippedNotice}', '${tenant}', '${action}', 13, 1, 'C0ESCALATE', 'admin', 1800, NULL, 'done', 1, now(), 'The action no longer waits at the escalated revision.');
      INSERT INTO "NotificationCursor" ("tenantId", "cursorSeq") VALUES ('${tenant}', 40);
      INSERT INTO "ReviewerEmail" (id, "tenantId", "actionId", revision, "userId", "toAddress", reason, mode, "auditSeq", status, attempts, "nextAttemptAt", "giveUpAt")
      VALUES ('${ids.digest}', '${tenant}', '${action}', 1, '${user}', 'r@migrated.test', 'pending', 'digest', 7, 'pending', 0, now() + interval '1 hour', now() + interval '1 day'),
        ('${ids.email}', '${tenant}', '${action}', 1, '${user}', 'r@migrated.test', 'escalated', 'immediate', 12, 'failed', 4, now(), now());`);
    await client.query(migration(OUTBOX));

    const { rows } = await client.query<{ id: string; channel: string; status: string; attempts: number; subscriptionId: string; batchKey: string | null; payload: Record<string, unknown>; state: Record<string, unknown> | null; version: string; sentVersion: string; lastError: string | null }>(
      `SELECT id::text, channel, status, attempts, "subscriptionId"::text AS "subscriptionId", "batchKey", payload, state, version::text, "sentVersion"::text AS "sentVersion", "lastError" FROM "OutboxDelivery"`);
    const row = (id: string) => rows.find((r) => r.id === id);
    expect(row(ids.delivered)).toMatchObject({ channel: "webhook", status: "sent", attempts: 1, subscriptionId: endpoint, state: { httpStatus: 204 },
      payload: { messageId: "msg_1", eventType: "action.pending", body: { type: "action.pending" } } });
    expect(row(ids.failedHook)).toMatchObject({ channel: "webhook", status: "failed", attempts: 9, lastError: "receiver down", state: { httpStatus: 500 } });
    expect(row(ids.message)).toMatchObject({ channel: "slack_message", status: "pending", version: "3", sentVersion: "2",
      state: { channel: "C0APPROVALS", ts: "1700000000.000100", shownRevision: 1, shownStatus: "pending" } });
    expect(row(ids.notice)).toMatchObject({ channel: "slack_notice", status: "failed", attempts: 5, lastError: "channel_not_found", payload: { channel: "C0ESCALATE", role: "admin", afterSeconds: 1800 } });
    expect(row(ids.skippedNotice)).toMatchObject({ channel: "slack_notice", status: "skipped" });
    expect(row(ids.digest)).toMatchObject({ channel: "reviewer_email", status: "pending", batchKey: `digest:${tenant}:${user}`, payload: { mode: "digest", reason: "pending", userId: user } });
    expect(row(ids.email)).toMatchObject({ channel: "reviewer_email", status: "failed", batchKey: null, payload: { mode: "immediate", reason: "escalated" } });
    expect(rows).toHaveLength(7);

    const cursors = await client.query<{ channel: string; cursorSeq: string }>(`SELECT channel, "cursorSeq"::text AS "cursorSeq" FROM "OutboxCursor" ORDER BY channel`);
    expect(cursors.rows).toEqual([
      { channel: "reviewer_email", cursorSeq: "40" }, { channel: "slack_message", cursorSeq: "33" }, { channel: "slack_notice", cursorSeq: "33" }, { channel: "webhook", cursorSeq: "41" },
    ]);
  });
});
