import { Prisma } from "@/lib/generated/prisma/client";
import { query, type SqlClient } from "@/lib/db/sql";

export type ApprovalSigner = {
  challengeId: string;
  receipt: string;
  receiptHash: string;
  passkeyId: string;
  passkeyName: string;
  credentialId: string;
  publicKey: string;
  publicKeySpki: string;
  algorithm: number;
};

/**
 * The approval challenge an assertion answers (by its challenge, in this tenant) and the passkey
 * it names (by credential id), both locked until the transaction ends. Whose they are, whether
 * they are still usable and what the receipt binds are judged by the vote statement
 * (cast-vote.ts), not here. Null: this console issued no such challenge, or knows no such passkey.
 */
export async function readApprovalSigner(
  tx: SqlClient,
  input: { tenantId: string; challenge: string; credentialId: string },
): Promise<ApprovalSigner | null> {
  const [row] = await query<ApprovalSigner>(tx, Prisma.sql`
    SELECT c.id AS "challengeId", c.receipt, c."receiptHash", p.id AS "passkeyId", p.name AS "passkeyName", p."credentialId",
      p."publicKey", p."publicKeySpki", p.algorithm
    FROM "WebAuthnChallenge" c, "Passkey" p
    WHERE c.challenge = ${input.challenge} AND c."tenantId" = ${input.tenantId}::uuid AND c.purpose = 'approval'
      AND c.receipt IS NOT NULL AND c."receiptHash" IS NOT NULL AND p."credentialId" = ${input.credentialId}
    FOR UPDATE OF c, p`);
  return row ?? null;
}
