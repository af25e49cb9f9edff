import type { FieldChange } from "@/lib/approvals/payload-diff";
import type { RiskLevel } from "@/lib/risk/risk-tag";
import { isUuid } from "@/lib/db/uuid";
import type { QueueCursor } from "@/lib/db/statements/actions/read-review-queue-keys";

/** One row of the review queue, as the page (and its client list) receives it. */
export type QueueItem = {
  id: string;
  tool: string;
  kind: "tool" | "code";
  summary: string;
  riskLevel: RiskLevel;
  /**
   * The highest-severity findings of the current revision (at most four), one per tag id with the
   * fields it was found in (at most MAX_GROUP_FIELDS listed, `moreFields` counting the rest).
   */
  riskTags: Array<{ id: string; severity: RiskLevel; reason: string; fields: string[]; moreFields: number }>;
  moreTags: number;
  requesterLabel: string;
  task: { id: string; instruction: string } | null;
  stepKey: string | null;
  /** A value the console cannot analyse (risk tag text.not-inspectable): never decided in bulk. */
  notInspectable: boolean;
  expiresAt: string | null;
  revision: number;
  /** The hash this reviewer is shown; a decision sends it back and the server compares. */
  payloadHash: string;
  approvals: number;
  quorum: number;
  /** This reviewer's vote on the current revision, if any. */
  myVote: "approve" | "reject" | null;
  /**
   * The state the revision rests on, read at listing time: what changed since request, or null when
   * it is unchanged (or rests on nothing). A changed row offers "Re-read state", not Approve.
   */
  stateChanges: FieldChange[] | null;
  /** How many more fields changed than `stateChanges` lists (it lists at most MAX_LISTED). */
  moreStateChanges: number;
  /** The policy asks for a passkey-signed approval: approved on the action page, where the passkey signs. */
  signatureRequired: boolean;
  /** Why this reviewer cannot decide it although it is listed (they wrote the revision), else null. */
  blockedReason: string | null;
};

export function encodeQueueCursor(cursor: QueueCursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString("base64url");
}

/** A malformed cursor is treated as "first page", never as an error. */
/** 9999-12-31T23:59:59.999Z: later than any expiry, earlier than PostgreSQL's limit. */
const LATEST_CURSOR_TIME = 253_402_300_799_999;

export function decodeQueueCursor(raw: string | undefined | null): QueueCursor | null {
  if (!raw || raw.length > 300) return null;
  try {
    const value = JSON.parse(Buffer.from(raw, "base64url").toString("utf8")) as Partial<QueueCursor>;
    // Only what the statement can bind: a small integer rank, a time PostgreSQL and JavaScript
    // both hold (written back in one form), a uuid. Anything else is the first page.
    const at = typeof value.expiresAt === "string" ? Date.parse(value.expiresAt) : Number.NaN;
    if (
      typeof value.riskRank === "number" && Number.isInteger(value.riskRank) && Math.abs(value.riskRank) <= 1000 &&
      at >= 0 && at <= LATEST_CURSOR_TIME &&
      typeof value.id === "string" && isUuid(value.id)
    ) {
      return { riskRank: value.riskRank, expiresAt: new Date(at).toISOString(), id: value.id };
    }
  } catch {
    // fall through
  }
  return null;
}
