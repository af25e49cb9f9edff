import { z } from "zod";
import { getDb } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { readDecisionState } from "@/lib/review/read-decision-state";
import { memberRoute } from "@/lib/server/boundary";

export const dynamic = "force-dynamic";

/**
 * The decision state of one action (current revision, status, state changed since request) for a
 * reviewer's open decision to follow: read-only, polled at most once a second while the queue's
 * dialog or the action page is open and visible. Another tenant's action and an unknown id are the
 * same 404.
 */
export const GET = memberRoute<{ params: Promise<Record<string, string>> }>(
  { name: "readDecisionState", permission: "actions:decide" },
  async (_request, member, context) => {
    const { id } = await context.params;
    const state = z.uuid().safeParse(id).success ? await readDecisionState(getDb(), member.tenant.id, id) : null;
    if (!state) throw new AppError("not_found", "This action was not found in this organisation.", 404);
    return Response.json(state, { headers: { "Cache-Control": "private, no-store" } });
  },
);
