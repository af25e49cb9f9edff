import { z } from "zod";
import { randomUUID } from "node:crypto";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import type { Db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { auditBodyOf, type AuditActor } from "@/lib/audit/append-audit-event";
import { refuseApiKeyAct } from "@/lib/api-keys/refuse-api-key-act";
import { insertApiKey } from "@/lib/db/statements/api-keys/insert-api-key";
import { toolsForTenant } from "@/lib/tools/tenant-tools";
import { generateApiKeySecret, hashApiKeySecret } from "@/lib/api-keys/api-key-secret";
import type { ApiKeySummary } from "@/lib/api-keys/api-key-summary";

export type CreateApiKeyInput = {
  tenantId: string;
  name: string;
  /** Tools this key may propose; each must be one of the tenant's tools (built-in, or an approved MCP tool). */
  allowedTools: string[];
  /** The admin creating it: an admin when the key is written, not only when the request arrived. */
  createdById: string;
};

const NameSchema = z
  .string()
  .trim()
  .min(1, "Give the key a name.")
  .max(64, "Key names are at most 64 characters.")
  .regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]*$/, "Use letters, digits, spaces, dots, dashes and underscores.");

/**
 * Creates a tenant-scoped key for an external agent. The secret is returned once and never
 * stored: only its SHA-256 is. The agent appears as `api:<name>` in the audit log.
 */
export async function createApiKey(db: Db, input: CreateApiKeyInput): Promise<{ apiKey: ApiKeySummary; secret: string }> {
  const name = NameSchema.safeParse(input.name);
  if (!name.success) throw new AppError("invalid_name", name.error.issues[0]?.message ?? "Invalid key name.", 400);
  const tools = [...new Set(input.allowedTools)];
  if (tools.length === 0) throw new AppError("invalid_tools", "Choose at least one tool the key may propose.", 400);
  const known = new Set((await toolsForTenant(db, input.tenantId)).map((tool) => tool.name));
  const unknown = tools.filter((tool) => !known.has(tool));
  if (unknown.length > 0) throw new AppError("invalid_tools", `Unknown tools: ${unknown.join(", ")}.`, 400);

  const creator = await db.membership.findFirst({
    where: { tenantId: input.tenantId, userId: input.createdById },
    select: { user: { select: { email: true } } },
  });
  if (!creator) throw new AppError("forbidden", "Only members of this organisation may create its API keys.", 403);
  const actor: AuditActor = { type: "user", id: input.createdById, label: creator.user.email };

  const { prefix, secret } = generateApiKeySecret();
  const id = randomUUID();
  const apiKey = await insertApiKey(db, {
    id, tenantId: input.tenantId, name: name.data, prefix, secretHash: hashApiKeySecret(secret), allowedTools: tools, createdById: input.createdById,
    created: auditBodyOf({
      tenantId: input.tenantId, actor, type: "api_key.created", outcome: "ok", subject: { type: "api_key", id },
      data: { name: name.data, prefix, allowedTools: tools },
    }),
  });
  if (!apiKey) throw await refuseApiKeyAct(db, { tenantId: input.tenantId, actor, apiKeyId: null, data: { operation: "create", name: name.data } });
  void requestSeal(db, input.tenantId);
  return { apiKey: { id: apiKey.id, name: apiKey.name, prefix: apiKey.prefix, allowedTools: apiKey.allowedTools, createdAt: apiKey.createdAt }, secret };
}
