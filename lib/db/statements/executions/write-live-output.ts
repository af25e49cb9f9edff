import { Prisma } from "@/lib/generated/prisma/client";
import { query, type Queryable } from "@/lib/db/sql";
import { encodeStoredText } from "@/lib/db/stored-text";

/** Keeps a running execution's output so far in its row (the final record overwrites it); stored-text encoded. */
export async function writeLiveOutput(q: Queryable, input: { tenantId: string; executionId: string; stdout: string; stderr: string }): Promise<void> {
  await query(q, Prisma.sql`
    UPDATE "Execution" SET stdout = ${encodeStoredText(input.stdout)}, stderr = ${encodeStoredText(input.stderr)}
    WHERE id = ${input.executionId}::uuid AND "tenantId" = ${input.tenantId}::uuid AND status = 'executing'`);
}
