import { AppError } from "@/lib/errors";
import { proposeAction } from "@/lib/approvals/propose-action";
import { apiRoute } from "@/lib/api/api-route";
import { API_ROUTES } from "@/lib/api/api-routes";

export const dynamic = "force-dynamic";

const CODE_TOOL = "run_python";

/** Submit a tool call or a code block; the policy answers allowed / denied / pending. */
export const POST = apiRoute(API_ROUTES.submitAction, async ({ db, body, key, tenant, requester }) => {
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
  });
  const headers = { "Cache-Control": "no-store", Location: `/api/v1/actions/${outcome.actionId}` };
  switch (outcome.state) {
    case "pending":
      return Response.json(
        {
          state: "pending", id: outcome.actionId, revision: outcome.revision, payloadHash: outcome.payloadHash,
          expiresAt: outcome.expiresAt.toISOString(), riskLevel: outcome.riskLevel, quorum: outcome.quorum, policyReason: outcome.reason,
        },
        { status: 201, headers },
      );
    case "allowed":
      return Response.json(
        {
          state: "allowed", id: outcome.actionId, policyReason: outcome.reason,
          execution: { state: outcome.execution.state, executionId: outcome.execution.executionId, result: outcome.execution.result, isolation: outcome.execution.isolation },
        },
        { status: 200, headers },
      );
    case "denied":
      return Response.json(
        { state: "denied", id: outcome.actionId, reason: outcome.reason, ruleId: outcome.ruleId, riskLevel: outcome.riskLevel },
        { status: 200, headers },
      );
  }
});
