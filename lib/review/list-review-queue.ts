import type { Db } from "@/lib/db/client";
import type { Prisma } from "@/lib/generated/prisma/client";
import type { Role } from "@/lib/generated/prisma/enums";
import { RISK_RANK, type RiskLevel, type RiskTag } from "@/lib/risk/risk-tag";
import { NOT_INSPECTABLE_TAG } from "@/lib/risk/deceptive-text";
import type { JsonObject, JsonValue } from "@/lib/canonical/json-value";
import { toolArgsOf } from "@/lib/approvals/action-revision";
import { listedChanges, type FieldChange } from "@/lib/approvals/payload-diff";
import { readStatesNow, type StateRead } from "@/lib/review/read-states-now";
import { changesSinceRequest } from "@/lib/review/state-verdict";
import { groupRiskTags } from "@/lib/risk/group-risk-tags";
import { readReviewQueueKeys } from "@/lib/db/statements/actions/read-review-queue-keys";
import { readCountingVotes } from "@/lib/db/statements/actions/read-counting-decisions";
import { encodeQueueCursor, type QueueItem } from "@/lib/review/queue-item";
import type { QueueCursor } from "@/lib/db/statements/actions/read-review-queue-keys";

export const QUEUE_PAGE_SIZE = 50;
const OWN_REQUESTS_SHOWN = 20;

export type ReviewQueue = {
  items: QueueItem[];
  /** Cursor of the next page, or null on the last page. */
  next: string | null;
  /** The reviewer's own requests that wait for someone else (they may not decide them). */
  ownRequests: Array<{ id: string; tool: string; summary: string; riskLevel: RiskLevel; expiresAt: string | null }>;
};

type ReviewerRef = { tenantId: string; userId: string; roles: Role[] };

const ROW_SELECT = {
  id: true, tool: true, kind: true, riskLevel: true, requesterLabel: true, stepKey: true,
  expiresAt: true, currentRevision: true, payloadHash: true, quorum: true,
  task: { select: { id: true, instruction: true } },
  revisions: {
    where: { status: "current" },
    select: {
      id: true, preview: true, riskTags: true, createdByUserId: true, args: true, code: true, language: true, policyDecision: true,
      snapshots: { where: { phase: "request" }, select: { data: true, hash: true }, take: 1 },
    },
  },
} as const satisfies Prisma.ActionSelect;

/**
 * The pending actions this reviewer may decide in this tenant, riskiest first, then soonest to
 * expire, keyset-paged: which ones, and in what order, one statement decides by the database
 * clock (readReviewQueueKeys); their details are then read by id. The reviewer's own requests are
 * never in the list (they may not decide them).
 */
export async function listReviewQueue(db: Db, reviewer: ReviewerRef, options: { after?: QueueCursor | null } = {}): Promise<ReviewQueue> {
  const after = options.after ?? null;
  const keys = await readReviewQueueKeys(db, {
    tenantId: reviewer.tenantId, userId: reviewer.userId, roles: reviewer.roles, after,
    limit: QUEUE_PAGE_SIZE + 1, ownLimit: after ? 0 : OWN_REQUESTS_SHOWN,
  });
  const queued = keys.filter((key) => !key.own);
  const pageKeys = queued.slice(0, QUEUE_PAGE_SIZE);
  const ownKeys = keys.filter((key) => key.own);
  const [rows, ownRows] = await Promise.all([
    pageKeys.length
      ? db.action.findMany({ where: { tenantId: reviewer.tenantId, id: { in: pageKeys.map((key) => key.id) } }, select: ROW_SELECT })
      : Promise.resolve([]),
    ownKeys.length
      ? db.action.findMany({
          where: { tenantId: reviewer.tenantId, id: { in: ownKeys.map((key) => key.id) } },
          select: { id: true, tool: true, riskLevel: true, expiresAt: true, revisions: { where: { status: "current" }, select: { preview: true } } },
        })
      : Promise.resolve([]),
  ]);
  const page = inOrderOf(pageKeys, rows);
  const [counting, states] = await Promise.all([
    // The votes that count, by the claim's rule (one whose reviewer lost the standing to decide does
    // not), in one statement: the reviewer's own vote and the approvals are read together.
    readCountingVotes(db, { tenantId: reviewer.tenantId, actionIds: page.map((row) => row.id) }),
    // Each row's state read now, compared with its request snapshot: a few reads for the whole page.
    stateChangesOf(db, reviewer.tenantId, page),
  ]);

  const items = page.map((row, index): QueueItem => {
    const revision = row.revisions[0];
    const votes = counting.filter((v) => v.revisionId === revision?.id);
    // A vote of theirs that stopped counting leaves them free to decide again (cast-vote.ts).
    const myVote = votes.find((v) => v.reviewerId === reviewer.userId)?.verdict ?? null;
    const tags = groupRiskTags(sortedTags(revision?.riskTags));
    return {
      id: row.id,
      tool: row.tool,
      kind: row.kind,
      summary: summaryOf(revision?.preview, row.tool),
      riskLevel: row.riskLevel,
      riskTags: tags.slice(0, 4).map(({ id, severity, reason, fields, moreFields }) => ({ id, severity, reason, fields, moreFields })),
      moreTags: Math.max(0, tags.length - 4),
      requesterLabel: row.requesterLabel,
      task: row.task,
      stepKey: row.stepKey,
      notInspectable: tags.some((t) => t.id === NOT_INSPECTABLE_TAG),
      expiresAt: row.expiresAt?.toISOString() ?? null,
      revision: row.currentRevision,
      payloadHash: row.payloadHash,
      approvals: votes.filter((v) => v.verdict === "approve").length,
      quorum: row.quorum,
      myVote,
      stateChanges: states[index]?.listed ?? null,
      moreStateChanges: states[index]?.more ?? 0,
      signatureRequired: isObjectWith(revision?.policyDecision, "signature", "required"),
      blockedReason: revision?.createdByUserId === reviewer.userId ? "You wrote this revision; another reviewer decides it." : null,
    };
  });
  const last = pageKeys.at(-1);
  const next =
    queued.length > QUEUE_PAGE_SIZE && last
      ? encodeQueueCursor({ riskRank: last.riskRank, expiresAt: last.expiresAt.toISOString(), id: last.id })
      : null;
  return {
    items,
    next,
    ownRequests: inOrderOf(ownKeys, ownRows).map((row) => ({
      id: row.id, tool: row.tool, riskLevel: row.riskLevel, expiresAt: row.expiresAt?.toISOString() ?? null,
      summary: summaryOf(row.revisions[0]?.preview, row.tool),
    })),
  };
}

/** The rows in the keys' order; a row gone since its key was read is left out. */
function inOrderOf<R extends { id: string }>(keys: Array<{ id: string }>, rows: R[]): R[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  return keys.flatMap((key) => byId.get(key.id) ?? []);
}

type Row = { tool: string; kind: "tool" | "code"; revisions: Array<{ args: unknown; code: string | null; language: string | null; snapshots: Array<{ data: unknown; hash: string }> }> };

async function stateChangesOf(db: Db, tenantId: string, rows: Row[]): Promise<Array<{ listed: FieldChange[]; more: number } | null>> {
  const reads = rows.map((row): StateRead | null => {
    const revision = row.revisions[0];
    if (!revision) return null;
    const atRequest = revision.snapshots[0];
    const args = toolArgsOf({ kind: row.kind, args: revision.args as JsonObject | null, code: revision.code, language: revision.language });
    return { tool: row.tool, args, atRequest: atRequest ? { data: atRequest.data as JsonValue, hash: atRequest.hash } : null };
  });
  const states = await readStatesNow(db, tenantId, reads);
  // Sent to the browser with the row: a changed schema can change thousands of fields.
  return states.map((now) => {
    const changes = changesSinceRequest(now);
    return changes ? listedChanges(changes) : null;
  });
}

function isObjectWith(value: unknown, key: string, expected: string): boolean {
  return value !== null && typeof value === "object" && (value as Record<string, unknown>)[key] === expected;
}

export function summaryOf(preview: unknown, tool: string): string {
  const summary = preview && typeof preview === "object" ? (preview as { summary?: unknown }).summary : null;
  return typeof summary === "string" && summary ? summary : tool;
}

export function sortedTags(raw: unknown): RiskTag[] {
  if (!Array.isArray(raw)) return [];
  return (raw as RiskTag[])
    .filter((t) => t && typeof t.id === "string" && t.severity in RISK_RANK)
    .sort((a, b) => RISK_RANK[b.severity] - RISK_RANK[a.severity]);
}
