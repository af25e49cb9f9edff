import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

export type QueueEmailInput = {
  tenantId: string;
  actionId: string;
  idempotencyKey: string;
  to: string;
  subject: string;
  body: string;
  /** The customer the email concerns, as the reviewers approved it (version and not opted out). */
  customer: { externalRef: string; version: number } | null;
};

/**
 * Writes the outbox row, unique on the execution's idempotency key: for a customer, only while it
 * is at the approved version and has not opted out. Null: the customer changed; nothing was written.
 */
export async function queueEmail(q: Queryable, input: QueueEmailInput): Promise<{ outboxId: string } | null> {
  const customer = input.customer;
  const [row] = await query<{ outboxId: string }>(q, Prisma.sql`
    INSERT INTO "EmailOutbox" (id, "tenantId", "toAddress", subject, body, "customerId", "idempotencyKey", "actionId")
    SELECT gen_random_uuid(), ${input.tenantId}::uuid, ${input.to}, ${input.subject}, ${input.body}, c.id, ${input.idempotencyKey},
      ${input.actionId}::uuid
    FROM (SELECT 1) one
    LEFT JOIN "Customer" c ON c."tenantId" = ${input.tenantId}::uuid AND c."externalRef" = ${customer?.externalRef ?? null}::text
    WHERE ${customer === null} OR (c.id IS NOT NULL AND c.version = ${customer?.version ?? 0}::int AND NOT c."optOut")
    RETURNING id AS "outboxId"`);
  return row ?? null;
}
