import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";

export type QueueEmailInput = {
  tenantId: string;
  actionId: string;
  idempotencyKey: string;
  to: string;
  subject: string;
  body: string;
  /** The customer the email concerns (it must not have opted out). */
  customer: { externalRef: string } | null;
  /** The invoice it concerns, with the status the reviewers approved. */
  invoice: { number: string; status: string } | null;
};

/**
 * Writes the outbox row, unique on the execution's idempotency key: for a customer, only while it
 * has not opted out; for an invoice, only while its status is the approved one. Null: that changed;
 * nothing was written.
 */
export async function queueEmail(q: Queryable, input: QueueEmailInput): Promise<{ outboxId: string } | null> {
  const { customer, invoice } = input;
  const [row] = await query<{ outboxId: string }>(q, Prisma.sql`
    INSERT INTO "EmailOutbox" (id, "tenantId", "toAddress", subject, body, "customerId", "idempotencyKey", "actionId")
    SELECT gen_random_uuid(), ${input.tenantId}::uuid, ${input.to}, ${input.subject}, ${input.body}, c.id, ${input.idempotencyKey},
      ${input.actionId}::uuid
    FROM (SELECT 1) one
    LEFT JOIN "Customer" c ON c."tenantId" = ${input.tenantId}::uuid AND c."externalRef" = ${customer?.externalRef ?? null}::text
    WHERE (${customer === null} OR (c.id IS NOT NULL AND NOT c."optOut"))
      AND (${invoice === null} OR EXISTS (SELECT 1 FROM "Invoice" i WHERE i."tenantId" = ${input.tenantId}::uuid
        AND i.number = ${invoice?.number ?? null}::text AND i.status::text = ${invoice?.status ?? null}::text))
    RETURNING id AS "outboxId"`);
  return row ?? null;
}
