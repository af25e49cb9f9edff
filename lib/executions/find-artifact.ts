import type { DbTx } from "@/lib/db/client";
import { isUuid } from "@/lib/db/uuid";
import { AppError } from "@/lib/errors";

export type ArtifactContent = { id: string; name: string; contentType: string; sizeBytes: number; sha256: string; data: Uint8Array };

/**
 * One artifact of an execution of `actionId`, in the tenant. An unknown id, another action's or
 * another tenant's artifact all answer the same 404: the tenant and the action are in the query.
 * The caller has already checked that the viewer may see the action.
 */
export async function findArtifact(db: DbTx, input: { tenantId: string; actionId: string; artifactId: string }): Promise<ArtifactContent> {
  const missing = new AppError("not_found", "That artifact was not found.", 404);
  if (!isUuid(input.artifactId) || !isUuid(input.actionId)) throw missing;
  const row = await db.executionArtifact.findFirst({
    where: { id: input.artifactId, tenantId: input.tenantId, execution: { tenantId: input.tenantId, actionId: input.actionId } },
    select: { id: true, name: true, contentType: true, sizeBytes: true, sha256: true, data: true },
  });
  if (!row) throw missing;
  return row;
}
