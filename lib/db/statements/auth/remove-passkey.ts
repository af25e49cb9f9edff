import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/db/audit-body";
import { auditInsertFromJson } from "@/lib/db/statements/audit/insert-audit-events";

/**
 * Removes one of the member's own passkeys from now (it never signs again; decisions it signed keep
 * naming it), with its `passkey.removed` events, in one statement. False: the member has no such
 * passkey, or it was already removed.
 */
export async function removePasskeyRow(q: Queryable, input: { userId: string; passkeyId: string; events: AttestedAuditBody[] }): Promise<boolean> {
  const rows = await query<{ id: string }>(q, Prisma.sql`
    WITH removed AS (
      UPDATE "Passkey" SET "removedAt" = now()
      WHERE id = ${input.passkeyId}::uuid AND "userId" = ${input.userId}::uuid AND "removedAt" IS NULL
      RETURNING id
    ),
    events AS (SELECT e AS event FROM jsonb_array_elements(${JSON.stringify(input.events)}::jsonb) e, removed),
    audit AS (${auditInsertFromJson(Prisma.sql`events`, Prisma.sql`events.event`)})
    SELECT id FROM removed`);
  return rows.length === 1;
}
