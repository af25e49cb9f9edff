import { readCapped } from "@/lib/api/read-json-body";
import { InvalidPayloadError } from "@/lib/canonical/invalid-payload-error";
import { getDb } from "@/lib/db/client";
import type { SlackAnswer } from "@/lib/slack/handle-slack-interaction";
import type { SlackRequest } from "@/lib/slack/authenticate-slack-request";
import type { Db } from "@/lib/db/client";

/** Largest body Slack's endpoints read (Slack's own payloads are far smaller). */
const MAX_BODY_BYTES = 64 * 1024;

/**
 * A route handler for a tenant's Slack endpoint: reads the raw body (the signature covers its
 * bytes), hands it to `handle` and answers as Slack expects; an unexpected error is logged without the body.
 */
export function slackRoute(handle: (db: Db, request: SlackRequest) => Promise<SlackAnswer>) {
  return async function POST(request: Request, context: { params: Promise<{ tenant: string }> }): Promise<Response> {
    const { tenant } = await context.params;
    const tooLarge = () => Response.json({ error: "The request is too large." }, { status: 413 });
    if (Number(request.headers.get("content-length") ?? "0") > MAX_BODY_BYTES) return tooLarge();
    // Read at most MAX_BODY_BYTES before anything checks the signature: the endpoint is public.
    let rawBody: string;
    try {
      rawBody = new TextDecoder().decode(await readCapped(request, MAX_BODY_BYTES));
    } catch (error) {
      if (error instanceof InvalidPayloadError && error.code === "payload_too_large") return tooLarge();
      throw error;
    }
    try {
      const answer = await handle(getDb(), {
        tenantSlug: tenant.slice(0, 100), rawBody,
        timestamp: request.headers.get("x-slack-request-timestamp"), signature: request.headers.get("x-slack-signature"),
        nowSeconds: Math.floor(Date.now() / 1000),
      });
      return answer.body === null ? new Response(null, { status: answer.status }) : Response.json(answer.body, { status: answer.status });
    } catch (error) {
      console.error("[countersign] slack endpoint error:", error instanceof Error ? error.message : "unknown error");
      return Response.json({ error: "Countersign could not handle this request; try again or open the action in Countersign." }, { status: 500 });
    }
  };
}
