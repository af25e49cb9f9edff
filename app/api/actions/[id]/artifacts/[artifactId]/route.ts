import { getDb } from "@/lib/db/client";
import { artifactResponse } from "@/lib/executions/artifact-response";
import { findArtifact } from "@/lib/executions/find-artifact";
import { memberRoute } from "@/lib/server/boundary";

export const dynamic = "force-dynamic";

/**
 * A file a code run left in /mnt/out, for members who may read the tenant's actions (the action
 * page shows images inline from here and links the rest as downloads). Another tenant's artifact
 * and an unknown id are the same 404.
 */
export const GET = memberRoute<{ params: Promise<Record<string, string>> }>(
  { name: "downloadArtifact", permission: "actions:read" },
  async (_request, member, context) => {
    const { id, artifactId } = await context.params;
    const artifact = await findArtifact(getDb(), { tenantId: member.tenant.id, actionId: id, artifactId });
    return artifactResponse(artifact);
  },
);
