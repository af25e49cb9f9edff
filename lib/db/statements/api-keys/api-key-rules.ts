import { Prisma } from "@/lib/generated/prisma/client";
import type { Sql } from "@/lib/generated/prisma/internal/prismaNamespace";

/**
 * Whether the API key row `key` (an alias of "ApiKey" in the statement) may act now: it is not
 * revoked. The one definition of a live key; apiKeyIsLiveSql applies it by id. A statement that
 * locks the key's row applies it to that row (lock-live-api-key.ts): PostgreSQL re-checks a locked
 * row's own conditions on the version it waited for, never a subquery's older snapshot.
 */
export function apiKeyRowIsLiveSql(key: Sql): Sql {
  return Prisma.sql`${key}."revokedAt" IS NULL`;
}

/**
 * Whether the API key `id` may act now: it exists and is not revoked (apiKeyRowIsLiveSql). The one
 * definition that the key lookup (read-api-key-by-prefix.ts) and the statements a key's requests go
 * through (write-proposals.ts, read-scoped-action.ts, and claim-approval.ts for the key that
 * proposed the action being executed) apply, so a key revoked a moment ago is refused by the
 * statement that would act for it, whatever a process still remembers about the key. With `lock`
 * (the execution claim), a live key's row is share-locked until the transaction ends: a revocation
 * under way is waited for and judged on the version it commits, and one that comes later waits for
 * the execution — never an execution that starts after its key's revocation.
 */
export function apiKeyIsLiveSql(id: Sql, options: { lock?: boolean } = {}): Sql {
  return Prisma.sql`EXISTS (SELECT 1 FROM "ApiKey" live_key WHERE live_key.id = ${id} AND ${apiKeyRowIsLiveSql(Prisma.sql`live_key`)}
    ${options.lock ? Prisma.sql`FOR SHARE OF live_key` : Prisma.empty})`;
}
