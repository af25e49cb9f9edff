import { z } from "zod";
import type { Member } from "@/lib/approvals/actors";
import { memberAuditActor } from "@/lib/approvals/actors";
import { auditBodyOf } from "@/lib/audit/append-audit-event";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import type { Db } from "@/lib/db/client";
import { readMcpServer } from "@/lib/db/statements/mcp/read-mcp-server";
import { updateMcpServerSecrets } from "@/lib/db/statements/mcp/update-mcp-server-secrets";
import { AppError, describeInvalid } from "@/lib/errors";
import { asMcpAdmin, noLongerMcpAdmin } from "@/lib/mcp/upstream/as-mcp-admin";
import { openSecrets, sealSecrets } from "@/lib/mcp/upstream/secret-box";
import { checkedSecrets, MAX_SECRETS } from "@/lib/mcp/upstream/server-config";

/** The new set of secrets: a value, or null to keep the value the secret of that name has now. */
export const ReplaceSecretsSchema = z
  .array(z.strictObject({ name: z.string().trim().min(1).max(128), value: z.string().max(8_000).nullable() }))
  .max(MAX_SECRETS);

/**
 * Replaces a server's secrets (e.g. a rotated token): the names listed are its secrets from now
 * on, each with the value given or, for null, the value it had. Values are sealed again; the
 * admin is never shown one. Its endpoint cannot change (remove and register it again for that).
 */
export async function replaceMcpServerSecrets(db: Db, input: { tenantId: string; admin: Member; serverId: string; secrets: unknown }): Promise<{ secretNames: string[] }> {
  return asMcpAdmin(db, { tenantId: input.tenantId, admin: input.admin, operation: "replace_secrets" }, async () => {
    const parsed = ReplaceSecretsSchema.safeParse(input.secrets);
    if (!parsed.success) throw new AppError("invalid_mcp_server", describeInvalid(parsed.error), 400);
    const server = await readMcpServer(db, { tenantId: input.tenantId, serverId: input.serverId });
    if (!server) throw new AppError("not_found", "That MCP server was not found.", 404);
    const bind = { tenantId: input.tenantId, serverId: server.id, serverName: server.name };
    const kept = parsed.data.some((s) => s.value === null) ? openSecrets(server.sealedSecrets, bind) : {};
    const next = parsed.data.map(({ name, value }) => {
      const current = value ?? kept[name];
      if (current === undefined) throw new AppError("invalid_mcp_server", `${name} has no value yet: give one.`, 400);
      return { name, value: current };
    });
    const secrets = checkedSecrets(server.transport, next);
    const secretNames = Object.keys(secrets);
    const changed = await updateMcpServerSecrets(db, {
      tenantId: input.tenantId, serverId: server.id, byUserId: input.admin.userId, fromSealed: server.sealedSecrets, secretNames, sealedSecrets: sealSecrets(secrets, bind),
      changed: auditBodyOf({
        tenantId: input.tenantId, actor: memberAuditActor(input.admin), type: "mcp.server_secrets_changed", outcome: "ok",
        subject: { type: "mcp_server", id: server.id }, data: { server: server.name, secretNames },
      }),
    });
    if (!changed.changed && changed.refusal === "not_admin") throw noLongerMcpAdmin();
    if (!changed.changed) throw new AppError("stale_secrets", "Someone changed this server's secrets meanwhile: reload the page and enter yours again.", 409);
    void requestSeal(db, input.tenantId);
    return { secretNames };
  });
}
