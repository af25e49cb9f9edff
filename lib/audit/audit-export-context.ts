import type { DbTx } from "@/lib/db/client";
import { toolArgsOf } from "@/lib/approvals/action-revision";
import { canonicalJson } from "@/lib/canonical/canonical-json";
import type { JsonObject, JsonValue } from "@/lib/canonical/json-value";
import type { AuditEventRow } from "@/lib/db/statements/audit/audit-event-filter";
import { sliceTimer } from "@/lib/scheduling/slice-timer";

/**
 * What an auditor reads beside an event, computed at export time (the sealed event is unchanged):
 * the action's summary and canonical arguments (of the revision the event names, else the latest),
 * the reviewer's and actor's emails, the note and reason recorded, and the agent's stated reason.
 */
export type AuditExportContext = {
  summary: string | null;
  arguments: string | null;
  reviewerEmail: string | null;
  note: string | null;
  reason: string | null;
  agentReason: string | null;
};

export const AUDIT_CONTEXT_COLUMNS = ["summary", "arguments", "reviewerEmail", "note", "reason", "agentReason"] as const satisfies ReadonlyArray<keyof AuditExportContext>;

const asObject = (v: unknown): JsonObject | null => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonObject) : null);
const textOf = (v: JsonValue | undefined): string | null => (typeof v === "string" && v.trim() !== "" ? v : null);

/**
 * The longest a context column is in the readable exports: a spreadsheet cell holds at most
 * 32,767 characters, and an action's arguments may be 256 KB (the action's page shows them whole).
 */
export const MAX_CONTEXT_CHARS = 32_000;

function capped(text: string): string {
  if (text.length <= MAX_CONTEXT_CHARS) return text;
  return `${text.slice(0, MAX_CONTEXT_CHARS)}… [cut: ${text.length - MAX_CONTEXT_CHARS} more characters; the action's page in Countersign shows them whole]`;
}

/**
 * The context of each event of a page, by event id: three reads per page whatever its size
 * (actions, the revisions named and current, users); arguments made canonical once per revision,
 * in slices between which the event loop turns.
 */
export async function auditExportContext(db: DbTx, tenantId: string, rows: readonly AuditEventRow[]): Promise<Map<string, AuditExportContext>> {
  const actionIds = [...new Set(rows.map((r) => r.actionId).filter((id): id is string => id !== null))];
  const userIds = [...new Set(rows.flatMap((r) => [r.reviewerId, r.actorType === "user" ? r.actorId : null]).filter((id): id is string => id !== null && /^[0-9a-f-]{36}$/i.test(id)))];
  const [actions, users] = await Promise.all([
    actionIds.length
      ? db.action.findMany({ where: { tenantId, id: { in: actionIds } }, select: { id: true, kind: true, reason: true, currentRevision: true } })
      : [],
    userIds.length ? db.user.findMany({ where: { id: { in: userIds } }, select: { id: true, email: true } }) : [],
  ]);
  const actionOf = new Map(actions.map((a) => [a.id, a]));
  const emailOf = new Map(users.map((u) => [u.id, u.email]));
  const namedRevision = (row: AuditEventRow) => {
    const data = asObject(row.data) ?? {};
    return typeof data.revision === "number" ? data.revision : null;
  };
  const key = (actionId: string, revision: number) => `${actionId}:${revision}`;
  const wanted = new Map<string, { actionId: string; revision: number }>();
  for (const row of rows) {
    const action = row.actionId ? actionOf.get(row.actionId) : undefined;
    if (!action) continue;
    for (const revision of [namedRevision(row), action.currentRevision]) {
      if (revision !== null) wanted.set(key(action.id, revision), { actionId: action.id, revision });
    }
  }
  const revisions = wanted.size
    ? await db.actionRevision.findMany({
        where: { tenantId, OR: [...wanted.values()] },
        select: { actionId: true, revision: true, args: true, code: true, language: true, preview: true },
      })
    : [];
  const revisionOf = new Map(revisions.map((r) => [key(r.actionId, r.revision), r]));

  const argumentsOf = new Map<string, string | null>();
  const tick = sliceTimer();
  const out = new Map<string, AuditExportContext>();
  for (const row of rows) {
    const data = asObject(row.data) ?? {};
    const action = row.actionId ? actionOf.get(row.actionId) : undefined;
    const revisionKey = action
      ? [namedRevision(row) ?? action.currentRevision, action.currentRevision].map((n) => key(action.id, n)).find((k) => revisionOf.has(k))
      : undefined;
    const revision = revisionKey ? revisionOf.get(revisionKey) : undefined;
    if (revisionKey && revision && action && !argumentsOf.has(revisionKey)) {
      const args = toolArgsOf({ kind: action.kind, args: asObject(revision.args), code: revision.code, language: revision.language });
      argumentsOf.set(revisionKey, args ? capped(canonicalJson(args)) : null);
      await tick();
    }
    out.set(String(row.id), {
      summary: textOf(asObject(revision?.preview ?? null)?.summary),
      arguments: revisionKey ? (argumentsOf.get(revisionKey) ?? null) : null,
      reviewerEmail: row.reviewerId ? (emailOf.get(row.reviewerId) ?? null) : null,
      note: textOf(data.note),
      reason: textOf(data.policyReason) ?? textOf(data.reason) ?? textOf(data.message) ?? textOf(data.error) ?? null,
      agentReason: action ? textOf(action.reason) : null,
    });
  }
  return out;
}
