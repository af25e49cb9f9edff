import { Prisma } from "@/lib/generated/prisma/client";
import type { Sql } from "@/lib/generated/prisma/internal/prismaNamespace";

/**
 * Whether the API key row `key` (an alias) may act now: not revoked. The one definition of a live
 * key; a statement that locks the key applies it to the locked row (lock-live-api-key.ts), which
 * PostgreSQL re-checks on the version it waited for, never on a subquery's older snapshot.
 */
export function apiKeyRowIsLiveSql(key: Sql): Sql {
  return Prisma.sql`${key}."revokedAt" IS NULL`;
}

/**
 * Whether API key `id` exists and may act now (apiKeyRowIsLiveSql): applied by the key lookup and
 * every statement a key's request goes through, whatever a process remembers. `lock` (the
 * execution claim) share-locks a live key's row until the transaction ends (docs/DESIGN.md,
 * "Standing is judged when the act runs").
 */
export function apiKeyIsLiveSql(id: Sql, options: { lock?: boolean } = {}): Sql {
  return Prisma.sql`EXISTS (SELECT 1 FROM "ApiKey" live_key WHERE live_key.id = ${id} AND ${apiKeyRowIsLiveSql(Prisma.sql`live_key`)}
    ${options.lock ? Prisma.sql`FOR SHARE OF live_key` : Prisma.empty})`;
}
