import { randomUUID } from "node:crypto";
import type { Db, DbTx } from "@/lib/db/client";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import type { JsonObject } from "@/lib/canonical/json-value";
import { AppError, isAppError, markAudited } from "@/lib/errors";
import { appendAuditEvent, auditBodyOf, type AuditActor } from "@/lib/audit/append-audit-event";
import type { AuditEventData } from "@/lib/audit/audit-event-types";
import { insertPolicyVersion } from "@/lib/db/statements/tenant/insert-policy-version";
import { checkPolicy } from "@/lib/policy/check-policy";
import { policyToolCatalogue } from "@/lib/policy/policy-tool-catalogue";
import { noLongerAdmin } from "@/lib/auth/no-longer-admin";

export type SavePolicyInput = {
  tenantId: string;
  /** The version the admin edited (0 when the tenant still runs on the built-in default). */
  baseVersion: number;
  document: unknown;
  comment?: string | null;
  actor: AuditActor & { id: string };
};

async function auditRefusal(db: Db, input: SavePolicyInput, data: Omit<AuditEventData<"policy.save_refused">, "baseVersion">) {
  await appendAuditEvent(db, {
    tenantId: input.tenantId, actor: input.actor, type: "policy.save_refused", outcome: "refused", subject: { type: "policy", id: null },
    data: { baseVersion: input.baseVersion, ...data },
  });
}

/**
 * Saves an edited policy as version n+1 once it validates (shape, rule ids, tool names, conditions
 * type-checked): one conditional insert, so an admin who edited a stale version is refused rather
 * than overwriting a colleague's save, and one no longer an admin saves nothing. Audited, refusals too.
 */
export async function savePolicy(db: Db, input: SavePolicyInput): Promise<{ version: number }> {
  if (!Number.isInteger(input.baseVersion) || input.baseVersion < 0) throw new AppError("invalid_input", "The base version is not valid.", 400);
  const comment = input.comment?.trim().slice(0, 500) || null;
  const tools = await policyToolCatalogue(db, input.tenantId);
  const result = await checkPolicy(input.document, { forSave: true, tools }).catch(async (error: unknown) => {
    // Past the compute pool's budget: refused like an invalid policy, and audited as such.
    if (!isAppError(error) || error.code !== "too_complex") throw error;
    await auditRefusal(db, input, { reason: "too_complex" });
    throw markAudited(error);
  });
  if (!result.ok) {
    await auditRefusal(db, input, { reason: "invalid", errors: result.errors.slice(0, 20).map((e) => `${e.path}: ${e.message}`) });
    throw markAudited(new AppError("invalid_policy", `The policy was not saved: ${result.errors.length} problem${result.errors.length === 1 ? "" : "s"} to fix.`, 400, { errors: result.errors }));
  }
  const version = input.baseVersion + 1;
  const document = { ...result.policy, version } as JsonObject;
  const id = randomUUID();
  const saved = await insertPolicyVersion(db, {
    id, tenantId: input.tenantId, baseVersion: input.baseVersion, document, comment, createdById: input.actor.id,
    saved: auditBodyOf({
      tenantId: input.tenantId, actor: input.actor, type: "policy.saved", outcome: "ok", subject: { type: "policy", id },
      data: { version, baseVersion: input.baseVersion, comment, tools: Object.keys(result.policy.tools).sort() },
    }),
  });
  if (!saved.saved) {
    await auditRefusal(db, input, { reason: saved.refusal });
    throw markAudited(saved.refusal === "not_admin"
      ? noLongerAdmin("save the policy")
      : new AppError("stale_policy", `Someone saved a newer policy since you opened version ${input.baseVersion}. Reload, re-apply your change and save again.`, 409));
  }
  void requestSeal(db, input.tenantId);
  return { version };
}

export type PolicyVersionSummary = { id: string; version: number; comment: string | null; createdAt: Date; createdBy: string | null };

/**
 * The tenant's policy versions, newest (in force) first, without their documents (up to 300,000
 * characters each: a page shows one at a time, readPolicyVersion).
 */
export async function listPolicyVersions(db: DbTx, tenantId: string, take = 20): Promise<PolicyVersionSummary[]> {
  const rows = await db.toolPolicy.findMany({
    where: { tenantId },
    orderBy: { version: "desc" },
    take,
    select: { id: true, version: true, comment: true, createdAt: true, createdById: true },
  });
  const ids = [...new Set(rows.map((r) => r.createdById).filter((id): id is string => id !== null))];
  const users = ids.length ? await db.user.findMany({ where: { id: { in: ids } }, select: { id: true, email: true } }) : [];
  const email = new Map(users.map((u) => [u.id, u.email]));
  return rows.map((r) => ({ id: r.id, version: r.version, comment: r.comment, createdAt: r.createdAt, createdBy: r.createdById ? email.get(r.createdById) ?? "a former member" : null }));
}

/** One policy version of the tenant with its document (`version` null: the one in force), or null when there is none. */
export async function readPolicyVersion(db: DbTx, tenantId: string, version: number | null): Promise<{ version: number; document: unknown } | null> {
  return db.toolPolicy.findFirst({
    where: { tenantId, ...(version === null ? {} : { version }) },
    orderBy: { version: "desc" },
    select: { version: true, document: true },
  });
}
