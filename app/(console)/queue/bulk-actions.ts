"use server";

import { consoleMember } from "@/lib/auth/acting-member";
import { z } from "zod";
import { decideAction } from "@/lib/approvals/decide-action";
import { getDb } from "@/lib/db/client";
import { AppError, toPublicError } from "@/lib/errors";
import { memberAction } from "@/lib/server/boundary";
import { BULK_MAX_ITEMS } from "@/lib/review/bulk-eligibility";
import { checkBulkBatch } from "@/lib/review/check-bulk-batch";

/** Ids and the hashes the reviewer was shown, one verdict and note for all: nothing else is trusted. */
const BulkSchema = z.strictObject({
  items: z
    .array(z.strictObject({ actionId: z.uuid(), payloadHash: z.string().regex(/^[0-9a-f]{64}$/) }))
    .min(2)
    .max(BULK_MAX_ITEMS),
  verdict: z.enum(["approve", "reject"]),
  note: z.string().max(2000).optional(),
  /** Milliseconds the confirmation showed the batch before this decision (the vote clamps it). */
  viewedMs: z.number().min(0).optional(),
});

export type BulkItemResult = { actionId: string; ok: true; status: string } | { actionId: string; ok: false; code: string; message: string };

/**
 * One confirmation, many decisions: the server re-reads the actions in this tenant, refuses the
 * whole batch unless they are all low risk and of one step, then decides each one through the
 * approval core (which re-checks role, self-approval, hash, quorum and expiry per action).
 */
export const bulkDecideFromQueue = memberAction(
  { name: "bulkDecideFromQueue", permission: "actions:decide", input: BulkSchema },
  async (input, member): Promise<BulkItemResult[]> => {
    const db = getDb();
    const ids = [...new Set(input.items.map((item) => item.actionId))];
    if (ids.length !== input.items.length) throw new AppError("invalid_input", "Each action may appear once.", 400);
    await checkBulkBatch(db, { tenantId: member.tenant.id, ids });

    const reviewer = consoleMember(member);
    const results: BulkItemResult[] = [];
    // Once the session has ended the rest would be refused the same way, each refusal audited: not attempted.
    let sessionEnded: { code: string; message: string } | null = null;
    for (const item of input.items) {
      if (sessionEnded) {
        results.push({ actionId: item.actionId, ok: false, code: sessionEnded.code, message: `Not attempted. ${sessionEnded.message}` });
        continue;
      }
      try {
        const outcome = await decideAction(db, {
          tenantId: member.tenant.id, actionId: item.actionId, reviewer, verdict: input.verdict,
          note: input.note ?? null, payloadHash: item.payloadHash, viewedMs: input.viewedMs ?? null,
        });
        results.push({ actionId: item.actionId, ok: true, status: outcome.status });
      } catch (error) {
        const { body } = toPublicError(error, "bulkDecideFromQueue");
        results.push({ actionId: item.actionId, ok: false, code: body.code, message: body.message });
        if (body.code === "session_ended") sessionEnded = body;
      }
    }
    return results;
  },
);
