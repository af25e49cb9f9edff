import { openSecrets, sealSecrets } from "@/lib/mcp/upstream/secret-box";
import { AppError } from "@/lib/errors";

/**
 * An endpoint's signing secrets at rest, sealed like upstream MCP servers' secrets (AES-256-GCM
 * under a key derived from the console's seed, outside the database), bound to the tenant and the
 * endpoint so a sealed value copied onto another row does not open.
 */
export type WebhookSecrets = { current: string; previous?: string };

const binding = (tenantId: string, endpointId: string) => ({ tenantId, serverId: `webhook:${endpointId}` });

export function sealWebhookSecrets(secrets: WebhookSecrets, tenantId: string, endpointId: string): string {
  const sealed = sealSecrets({ ...secrets }, binding(tenantId, endpointId));
  if (sealed === null) throw new Error("A webhook endpoint always has a secret.");
  return sealed;
}

export function openWebhookSecrets(sealed: string, tenantId: string, endpointId: string): WebhookSecrets {
  try {
    const opened = openSecrets(sealed, { ...binding(tenantId, endpointId), serverName: endpointId });
    if (typeof opened.current !== "string") throw new Error("no current secret");
    return { current: opened.current, ...(typeof opened.previous === "string" ? { previous: opened.previous } : {}) };
  } catch {
    throw new AppError(
      "secrets_unreadable",
      "This webhook endpoint's secret cannot be opened with this console's key (was AUDIT_SIGNING_KEY changed?): rotate its secret.",
      409,
    );
  }
}
