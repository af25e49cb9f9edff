import { AppError, describeInvalid } from "@/lib/errors";
import { consoleMember } from "@/lib/auth/acting-member";
import { memberAuditActor } from "@/lib/approvals/actors";
import { getDb } from "@/lib/db/client";
import { memberRoute } from "@/lib/server/boundary";
import { executionResponse } from "@/lib/api/execution-response";
import { findScopedAction } from "@/lib/api/load-action-view";
import { readJsonBody } from "@/lib/api/read-json-body";
import { BrowserExecuteBodySchema } from "@/lib/api/schemas";

export const dynamic = "force-dynamic";

/**
 * The console's execution route: a reviewer runs an approved action and watches its output
 * stream (NDJSON, see lib/api/stream-execution.ts). Same-origin only (the boundary checks it); the
 * body carries the hash the reviewer saw, and the server reloads everything else.
 */
export const POST = memberRoute<{ params: Promise<Record<string, string>> }>(
  { name: "executeActionFromConsole", permission: "actions:decide" },
  async (request, member, context) => {
    const raw = await readJsonBody(request);
    if (raw === undefined) throw new AppError("invalid_input", "Send the payload hash you reviewed: { \"payloadHash\": \"…\" }.", 400);
    const parsed = BrowserExecuteBodySchema.safeParse(raw);
    if (!parsed.success) throw new AppError("invalid_input", describeInvalid(parsed.error), 400);
    const { id } = await context.params;
    const db = getDb();
    const action = await findScopedAction(db, { tenantId: member.tenant.id, actionId: id, apiKeyId: null });
    return executionResponse({
      db, tenantId: member.tenant.id, actionId: action.id, kind: action.kind, state: action.state, currentHash: action.payloadHash,
      payloadHash: parsed.data.payloadHash,
      // The claim checks that this member may still decide here (the boundary's check ran before it).
      executor: { type: "member", userId: member.user.id, sessionId: member.session.id },
      actor: memberAuditActor(consoleMember(member)),
      signal: request.signal, format: "stream",
    });
  },
);
