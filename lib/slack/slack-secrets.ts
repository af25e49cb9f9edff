import { openSecrets, sealSecrets } from "@/lib/mcp/upstream/secret-box";
import { AppError } from "@/lib/errors";

/**
 * A tenant's Slack secrets at rest, sealed like webhook secrets and bound to the tenant (a value
 * copied onto another tenant's row does not open). Never sent to the client or logged.
 */
export type SlackSecrets = { botToken: string; signingSecret: string };

const binding = (tenantId: string) => ({ tenantId, serverId: "slack" });

export function sealSlackSecrets(secrets: SlackSecrets, tenantId: string): string {
  const sealed = sealSecrets({ ...secrets }, binding(tenantId));
  if (sealed === null) throw new Error("A Slack integration always has secrets.");
  return sealed;
}

export function openSlackSecrets(sealed: string, tenantId: string): SlackSecrets {
  try {
    const opened = openSecrets(sealed, { ...binding(tenantId), serverName: "slack" });
    if (typeof opened.botToken !== "string" || typeof opened.signingSecret !== "string") throw new Error("incomplete");
    return { botToken: opened.botToken, signingSecret: opened.signingSecret };
  } catch {
    throw new AppError(
      "secrets_unreadable",
      "The Slack app's token and signing secret cannot be opened with this console's key (was AUDIT_SIGNING_KEY changed?): an admin must enter them again.",
      409,
    );
  }
}
