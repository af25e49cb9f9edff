import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

/** Records that the outbox row went out over SMTP (database clock). */
export async function markEmailSent(q: Queryable, input: { tenantId: string; outboxId: string }): Promise<void> {
  await query(q, Prisma.sql`
    UPDATE "EmailOutbox" SET status = 'sent', "sentAt" = now()
    WHERE id = ${input.outboxId}::uuid AND "tenantId" = ${input.tenantId}::uuid`);
}
