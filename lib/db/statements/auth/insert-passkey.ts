import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import type { AttestedAuditBody } from "@/lib/db/audit-body";
import { auditInsertFromJson } from "@/lib/db/statements/audit/insert-audit-events";

export type NewPasskey = {
  id: string;
  userId: string;
  credentialId: string;
  name: string;
  publicKey: string;
  publicKeySpki: string;
  algorithm: number;
  counter: number;
  transports: string[];
  deviceType: string;
  backedUp: boolean;
};

/**
 * Stores a member's new passkey with its `passkey.registered` events (one per organisation the
 * member belongs to) in one statement. False: that credential is already registered.
 */
export async function insertPasskey(q: Queryable, input: { passkey: NewPasskey; events: AttestedAuditBody[] }): Promise<boolean> {
  const p = input.passkey;
  const rows = await query<{ id: string }>(q, Prisma.sql`
    WITH inserted AS (
      INSERT INTO "Passkey" (id, "userId", "credentialId", name, "publicKey", "publicKeySpki", algorithm, counter, transports, "deviceType", "backedUp")
      VALUES (${p.id}::uuid, ${p.userId}::uuid, ${p.credentialId}, ${p.name}, ${p.publicKey}, ${p.publicKeySpki}, ${p.algorithm}, ${p.counter},
        ${p.transports}::text[], ${p.deviceType}, ${p.backedUp})
      ON CONFLICT ("credentialId") DO NOTHING
      RETURNING id
    ),
    events AS (SELECT e AS event FROM jsonb_array_elements(${JSON.stringify(input.events)}::jsonb) e, inserted),
    audit AS (${auditInsertFromJson(Prisma.sql`events`, Prisma.sql`events.event`)})
    SELECT id FROM inserted`);
  return rows.length === 1;
}
