import { Prisma } from "@/lib/generated/prisma/client";
import { jsonParam, query, type Queryable, type SqlClient } from "@/lib/db/sql";

/**
 * The MCP sessions table (lib/mcp/mcp-sessions.ts): any console instance opens, continues and ends
 * any session here, by the database clock. A session is idle when it had no request for
 * `idleSeconds` and none of its calls holds a live lease; an idle session is over.
 */
const busySql = (session: Prisma.Sql) =>
  Prisma.sql`EXISTS (SELECT 1 FROM "McpSessionCall" c WHERE c."sessionId" = ${session} AND c."leaseUntil" > now())`;

export type OpenedMcpSession = { opened: true } | { opened: false; open: number };

/**
 * A new session for the key, unless the key already holds `maxPerKey` live sessions that are all
 * busy: idle ones end here, and when the key is at its maximum its least recently used idle
 * session ends to make room. Sessions ended over a day ago are forgotten. Serialised per key by an
 * advisory lock held to the end of the transaction `tx`.
 */
export async function openMcpSessionRow(
  tx: SqlClient,
  input: { id: string; tenantId: string; apiKeyId: string; idleSeconds: number; maxPerKey: number },
): Promise<OpenedMcpSession> {
  await query(tx, Prisma.sql`SELECT pg_advisory_xact_lock(hashtextextended('mcp-sessions:' || ${input.apiKeyId}, 0))`);
  await query(tx, Prisma.sql`
    DELETE FROM "McpSession" WHERE "apiKeyId" = ${input.apiKeyId}::uuid AND "endedAt" < now() - interval '1 day'`);
  const [row] = await query<{ opened: boolean; open: number }>(tx, Prisma.sql`
    WITH open AS (
      SELECT s.id, s."lastSeenAt", ${busySql(Prisma.sql`s.id`)} AS busy
      FROM "McpSession" s WHERE s."apiKeyId" = ${input.apiKeyId}::uuid AND s."endedAt" IS NULL
    ),
    live AS (SELECT * FROM open WHERE busy OR "lastSeenAt" > now() - make_interval(secs => ${input.idleSeconds}::int)),
    room AS (SELECT count(*) >= ${input.maxPerKey}::int AS at_max FROM live),
    lru AS (SELECT id FROM live WHERE NOT busy AND (SELECT at_max FROM room) ORDER BY "lastSeenAt" LIMIT 1),
    ended AS (
      UPDATE "McpSession" SET "endedAt" = now()
      WHERE id IN (SELECT id FROM open WHERE id NOT IN (SELECT id FROM live)) OR id IN (SELECT id FROM lru)
      RETURNING id
    ),
    inserted AS (
      INSERT INTO "McpSession" (id, "tenantId", "apiKeyId")
      SELECT ${input.id}::uuid, ${input.tenantId}::uuid, ${input.apiKeyId}::uuid
      WHERE NOT (SELECT at_max FROM room) OR EXISTS (SELECT 1 FROM lru)
      RETURNING id
    )
    SELECT EXISTS (SELECT 1 FROM inserted) AS opened, (SELECT count(*) FROM live)::int AS open`);
  return row.opened ? { opened: true } : { opened: false, open: row.open };
}

/**
 * A request of session `id`: the key's live session (not ended, not idle) is marked seen now and
 * its remembered tool-output strings returned; null when there is none — ended, idle too long,
 * or another key's or tenant's.
 */
export async function touchMcpSession(
  q: Queryable,
  input: { id: string; tenantId: string; apiKeyId: string; idleSeconds: number },
): Promise<{ untrusted: string[] } | null> {
  const [row] = await query<{ untrusted: string[] }>(q, Prisma.sql`
    UPDATE "McpSession" s SET "lastSeenAt" = now()
    WHERE s.id = ${input.id}::uuid AND s."apiKeyId" = ${input.apiKeyId}::uuid AND s."tenantId" = ${input.tenantId}::uuid
      AND s."endedAt" IS NULL
      AND (s."lastSeenAt" > now() - make_interval(secs => ${input.idleSeconds}::int) OR ${busySql(Prisma.sql`s.id`)})
    RETURNING s.untrusted`);
  return row ?? null;
}

/**
 * Ends the key's session `id` (the client's DELETE): its calls still being answered, wherever,
 * are marked cancelled with `reason`. Returns whether it ended a session, and the actions of those
 * calls that had become one (the caller withdraws them; a call not yet proposed finds the mark).
 */
export async function endMcpSessionRow(
  q: Queryable,
  input: { id: string; tenantId: string; apiKeyId: string; reason: string },
): Promise<{ ended: boolean; actionIds: string[] }> {
  const [row] = await query<{ ended: boolean; actionIds: string[] }>(q, Prisma.sql`
    WITH ended AS (
      UPDATE "McpSession" SET "endedAt" = now()
      WHERE id = ${input.id}::uuid AND "apiKeyId" = ${input.apiKeyId}::uuid AND "tenantId" = ${input.tenantId}::uuid AND "endedAt" IS NULL
      RETURNING id
    ),
    calls AS (
      UPDATE "McpSessionCall" c SET "cancelReason" = COALESCE(c."cancelReason", ${input.reason})
      FROM ended WHERE c."sessionId" = ended.id AND c."cancelReason" IS NULL
      RETURNING c."actionId"
    )
    SELECT EXISTS (SELECT 1 FROM ended) AS ended,
      ARRAY(SELECT "actionId"::text FROM calls WHERE "actionId" IS NOT NULL) AS "actionIds"`);
  return row;
}

/** Records a call of the session as being answered, leased for `leaseSeconds`. */
export async function beginMcpCall(q: Queryable, input: { sessionId: string; requestId: string; leaseSeconds: number }): Promise<void> {
  await query(q, Prisma.sql`
    INSERT INTO "McpSessionCall" ("sessionId", "requestId", "leaseUntil")
    VALUES (${input.sessionId}::uuid, ${input.requestId}, now() + make_interval(secs => ${input.leaseSeconds}::int))
    ON CONFLICT ("sessionId", "requestId") DO UPDATE
      SET "actionId" = NULL, "cancelReason" = NULL, "leaseUntil" = EXCLUDED."leaseUntil", "createdAt" = now()`);
}

/**
 * Names the action a call became, renewing its lease. Returns the cancellation recorded for the
 * call before it had one (the caller withdraws the action itself), or null.
 */
export async function attachMcpCallAction(
  q: Queryable,
  input: { sessionId: string; requestId: string; actionId: string; leaseSeconds: number },
): Promise<string | null> {
  const [row] = await query<{ cancelReason: string | null }>(q, Prisma.sql`
    UPDATE "McpSessionCall" SET "actionId" = ${input.actionId}::uuid, "leaseUntil" = now() + make_interval(secs => ${input.leaseSeconds}::int)
    WHERE "sessionId" = ${input.sessionId}::uuid AND "requestId" = ${input.requestId}
    RETURNING "cancelReason"`);
  return row?.cancelReason ?? null;
}

/** Keeps a waiting call's lease, and its session seen, while the call is answered. */
export async function renewMcpCall(q: Queryable, input: { sessionId: string; requestId: string; leaseSeconds: number }): Promise<void> {
  await query(q, Prisma.sql`
    WITH call AS (
      UPDATE "McpSessionCall" SET "leaseUntil" = now() + make_interval(secs => ${input.leaseSeconds}::int)
      WHERE "sessionId" = ${input.sessionId}::uuid AND "requestId" = ${input.requestId}
      RETURNING "sessionId"
    )
    UPDATE "McpSession" SET "lastSeenAt" = now() WHERE id IN (SELECT "sessionId" FROM call)`);
}

/** The call was answered (or given up): it no longer keeps its session busy. */
export async function endMcpCall(q: Queryable, input: { sessionId: string; requestId: string }): Promise<void> {
  await query(q, Prisma.sql`DELETE FROM "McpSessionCall" WHERE "sessionId" = ${input.sessionId}::uuid AND "requestId" = ${input.requestId}`);
}

/**
 * The client cancelled call `requestId` of the key's session (`notifications/cancelled`, which may
 * reach another instance than the call): recorded on the call, once. Returns the call's action when
 * it had become one and was not cancelled before (the caller withdraws it), else null.
 */
export async function cancelMcpCall(
  q: Queryable,
  input: { sessionId: string; tenantId: string; apiKeyId: string; requestId: string; reason: string },
): Promise<{ actionId: string | null } | null> {
  const [row] = await query<{ actionId: string | null }>(q, Prisma.sql`
    UPDATE "McpSessionCall" c SET "cancelReason" = ${input.reason}
    FROM "McpSession" s
    WHERE c."sessionId" = s.id AND s.id = ${input.sessionId}::uuid AND s."apiKeyId" = ${input.apiKeyId}::uuid
      AND s."tenantId" = ${input.tenantId}::uuid AND c."requestId" = ${input.requestId} AND c."cancelReason" IS NULL
    RETURNING c."actionId"`);
  return row ?? null;
}

/** The session's remembered tool-output strings, locked until the transaction `tx` ends. */
export async function lockMcpSessionUntrusted(tx: SqlClient, input: { id: string }): Promise<string[] | null> {
  const [row] = await query<{ untrusted: string[] }>(tx, Prisma.sql`SELECT untrusted FROM "McpSession" WHERE id = ${input.id}::uuid FOR NO KEY UPDATE`);
  return row?.untrusted ?? null;
}

export async function setMcpSessionUntrusted(tx: SqlClient, input: { id: string; untrusted: string[] }): Promise<void> {
  await query(tx, Prisma.sql`UPDATE "McpSession" SET untrusted = ${jsonParam(input.untrusted)}::jsonb WHERE id = ${input.id}::uuid`);
}
