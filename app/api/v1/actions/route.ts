import { AppError } from "@/lib/errors";
import { proposeAction } from "@/lib/approvals/propose-action";
import { apiRoute } from "@/lib/api/api-route";
import { API_ROUTES } from "@/lib/api/api-routes";
import { optionalIdempotencyKey } from "@/lib/api/idempotency-key";
import { replayedSubmissionBody, submissionBody } from "@/lib/api/submission-response";

export const dynamic = "force-dynamic";

const CODE_TOOL = "run_python";

/**
 * Submit a tool call or a code block; the policy answers allowed / denied / pending. With an
 * Idempotency-Key the key submits one action per key: a retry gets that action back.
 */
export const POST = apiRoute(API_ROUTES.submitAction, async ({ db, body, key, tenant, requester, request }) => {
  const submitKey = optionalIdempotencyKey(request.headers);
  const isCode = "code" in body;
  const tool = isCode ? CODE_TOOL : body.tool;
  if (!key.allowedTools.includes(tool)) {
    throw new AppError("tool_not_allowed", `This API key may not propose ${tool}.`, 403, { tool, allowedTools: key.allowedTools });
  }
  const outcome = await proposeAction(db, {
    tenantId: tenant.id,
    requester,
    tool,
    args: isCode ? { code: body.code, language: body.language } : body.args,
    reason: body.reason,
    untrustedValues: body.untrustedValues,
    submitKey,
  });
  const headers: Record<string, string> = { "Cache-Control": "no-store", Location: `/api/v1/actions/${outcome.actionId}` };
  if (submitKey !== null) headers["Idempotency-Key"] = submitKey;
  if (outcome.state === "replayed") {
    headers["Idempotent-Replayed"] = "true";
    return Response.json(replayedSubmissionBody(outcome.submitted), { status: 200, headers });
  }
  const { status, body: answer } = submissionBody(outcome);
  return Response.json(answer, { status, headers });
});
