import { apiRoute } from "@/lib/api/api-route";
import { API_ROUTES } from "@/lib/api/api-routes";
import { findScopedAction } from "@/lib/api/load-action-view";
import { artifactResponse } from "@/lib/executions/artifact-response";
import { findArtifact } from "@/lib/executions/find-artifact";

export const dynamic = "force-dynamic";

/** A file the run of an action this key submitted left in /mnt/out (listed in the execution's result.artifacts). */
export const GET = apiRoute(API_ROUTES.getArtifact, async ({ db, key, tenant, params }) => {
  const action = await findScopedAction(db, { tenantId: tenant.id, actionId: params.id, apiKeyId: key.id });
  return artifactResponse(await findArtifact(db, { tenantId: tenant.id, actionId: action.id, artifactId: params.artifactId }));
});
