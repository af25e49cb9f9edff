import type { z } from "zod";
import {
  ActionViewSchema,
  AuditLogInfoSchema,
  ConsistencyProofQuerySchema,
  ConsistencyProofSchema,
  InclusionProofQuerySchema,
  InclusionProofSchema,
  CancelBodySchema,
  CancelResponseSchema,
  DecisionWaitQuerySchema,
  DecisionWaitResponseSchema,
  ExecuteBodySchema,
  ExecuteToolResponseSchema,
  StreamEventSchema,
  SubmitActionSchema,
  SubmitResponseSchema,
} from "@/lib/api/schemas";

/** A response header as documented: what it says, and its type. */
export type ApiResponseHeader = { description: string; type: "integer" | "string" | "boolean" };

export type ApiResponseSpec = { description: string; schema?: z.ZodType; contentType?: string; headers?: Record<string, ApiResponseHeader> };

/**
 * One agent-API operation: what the handler validates and what the OpenAPI document says. The
 * route handlers are built from these (lib/api/api-route.ts), so the two cannot disagree.
 */
export type ApiRouteDefinition<B extends z.ZodType | undefined = z.ZodType | undefined, Q extends z.ZodType | undefined = z.ZodType | undefined> = {
  operationId: string;
  method: "GET" | "POST";
  /** OpenAPI form: /api/v1/actions/{id} */
  path: string;
  summary: string;
  description?: string;
  body?: B;
  /** Whether an empty body is refused (with a body schema) or read as `{}`. */
  bodyRequired?: boolean;
  query?: Q;
  headers?: Array<{ name: string; required: boolean; description: string }>;
  /** Public document (no key, no rate limit). */
  public?: boolean;
  responses: Record<number, ApiResponseSpec>;
};

const ERR = {
  400: { description: "Invalid input: malformed or non-strict JSON, unknown fields, invalid arguments." },
  401: { description: "Missing, malformed, unknown or revoked API key." },
  404: { description: "No such action for this key (unknown ids and other tenants' or keys' actions look the same)." },
  413: { description: "Body larger than the limit (256 KiB)." },
  415: { description: "Body not sent as application/json." },
  429: {
    description: "Rate limit exceeded for this key; retry after Retry-After seconds.",
    headers: { "Retry-After": { description: "Seconds until the window resets", type: "integer" } },
  },
} satisfies Record<number, ApiResponseSpec>;

const crossSite403 = "Cross-site browser request refused (cross_site_request).";
const AGENTS_PAUSED_423 = "An admin paused the organisation's agents or this API key (agents_paused); nothing was done. Retry once resumed.";

function defineRoute<B extends z.ZodType | undefined, Q extends z.ZodType | undefined>(route: ApiRouteDefinition<B, Q>) {
  return route;
}

export const API_ROUTES = {
  getAuditLog: defineRoute({
    operationId: "getAuditLog",
    method: "GET",
    path: "/api/v1/audit/checkpoint",
    summary: "The tenant's audit log: its origin, verifier key, size and latest signed checkpoint",
    description: "Save the checkpoint note: a later one must be consistent with it (GET /api/v1/audit/proofs/consistency), or history was rewritten.",
    responses: { 200: { description: "The log.", schema: AuditLogInfoSchema }, 401: ERR[401], 429: ERR[429] },
  }),
  getInclusionProof: defineRoute({
    operationId: "getInclusionProof",
    method: "GET",
    path: "/api/v1/audit/proofs/inclusion",
    summary: "Prove that an audit event is in the tenant's log",
    description: "An RFC 9162 inclusion proof of leaf `seq` against a tree size (by default the latest signed checkpoint's). Hashes only: the event itself is for auditors (/api/audit/export).",
    query: InclusionProofQuerySchema,
    responses: { 200: { description: "The proof.", schema: InclusionProofSchema }, 400: ERR[400], 401: ERR[401], 429: ERR[429] },
  }),
  getConsistencyProof: defineRoute({
    operationId: "getConsistencyProof",
    method: "GET",
    path: "/api/v1/audit/proofs/consistency",
    summary: "Prove that the tenant's log only grew between two sizes",
    description: "An RFC 9162 consistency proof from tree size `from` to `to` (by default the latest signed checkpoint's).",
    query: ConsistencyProofQuerySchema,
    responses: { 200: { description: "The proof.", schema: ConsistencyProofSchema }, 400: ERR[400], 401: ERR[401], 429: ERR[429] },
  }),
  submitAction: defineRoute({
    operationId: "submitAction",
    method: "POST",
    path: "/api/v1/actions",
    summary: "Submit a tool call or a code block",
    description:
      "The policy classifies it at once. `allowed`: it ran and the result is included (200). `denied`: refused by policy with the reason (200; the action is recorded). `pending`: it waits for reviewers (201); wait with GET /decision, then execute.\n\n" +
      "Send an `Idempotency-Key` to make retries safe: the key submits at most one action per Idempotency-Key, however often or concurrently the request is sent. " +
      "The same request again answers 200 with that action (`replayed: true`, header `Idempotent-Replayed: true`): `state` as the policy first classified it, `actionState` where it is now. " +
      "The same request means the same tool, the same arguments once parsed (key order, a `null` for an absent optional argument, or a default left out make no difference), the same reason and untrusted values; any other request under a used key is refused with 409 `idempotency_key_reused`.",
    body: SubmitActionSchema,
    bodyRequired: true,
    headers: [
      {
        name: "Idempotency-Key",
        required: false,
        description: "1–200 visible ASCII characters, unique per request (e.g. the model's tool-call id); retries must reuse it. Scoped to this API key; echoed back and recorded in the audit log.",
      },
    ],
    responses: {
      200: {
        description: "Allowed (ran now, result included), denied by policy (reason included), or a replay of the action already submitted under this Idempotency-Key.",
        schema: SubmitResponseSchema,
        headers: {
          "Idempotent-Replayed": { description: "`true` when the answer is the action an earlier submit with this Idempotency-Key made.", type: "boolean" },
        },
      },
      201: { description: "Pending: waits for a reviewer's decision.", schema: SubmitResponseSchema },
      ...ERR,
      400: { description: `${ERR[400].description} A malformed Idempotency-Key (invalid_idempotency_key).` },
      403: { description: `The key may not propose this tool (tool_not_allowed), or ${crossSite403}` },
      409: { description: "This Idempotency-Key was already used by this API key for a different request (idempotency_key_reused); details.actionId names that action." },
      423: { description: AGENTS_PAUSED_423 },
    },
  }),
  getAction: defineRoute({
    operationId: "getAction",
    method: "GET",
    path: "/api/v1/actions/{id}",
    summary: "Read an action: state, decisions with reviewer notes, revision, hash, expiry, execution",
    responses: { 200: { description: "The action.", schema: ActionViewSchema }, 401: ERR[401], 404: ERR[404], 429: ERR[429] },
  }),
  waitForDecision: defineRoute({
    operationId: "waitForDecision",
    method: "GET",
    path: "/api/v1/actions/{id}/decision",
    summary: "Long-poll until the action is no longer pending (bounded timeout)",
    description: "Returns as soon as the action is decided (or expires, or is cancelled), or after `timeout` seconds with `decided: false`.",
    query: DecisionWaitQuerySchema,
    responses: { 200: { description: "Decided, or still pending after the timeout.", schema: DecisionWaitResponseSchema }, 400: ERR[400], 401: ERR[401], 404: ERR[404], 429: ERR[429] },
  }),
  executeAction: defineRoute({
    operationId: "executeAction",
    method: "POST",
    path: "/api/v1/actions/{id}/execute",
    summary: "Execute an approved action, once",
    description:
      "Tool calls answer JSON. Code answers an NDJSON stream (application/x-ndjson): stdout/stderr lines as they come, then one `result` line (or an `error` line). Any later call returns the recorded result with `replayed: true`, never a second run.",
    body: ExecuteBodySchema,
    headers: [{ name: "Idempotency-Key", required: true, description: "1–200 visible ASCII characters; retries must reuse it. Echoed back and recorded in the audit log." }],
    responses: {
      200: { description: "Tool result (JSON) or the execution stream (NDJSON, code).", schema: ExecuteToolResponseSchema },
      ...ERR,
      400: { description: "Missing Idempotency-Key (idempotency_key_required) or invalid body." },
      403: { description: crossSite403 },
      409: { description: "Not executable: not_executable.<state> (e.g. pending, rejected), expired, hash_mismatch, state_changed." },
      423: { description: `${AGENTS_PAUSED_423} The approval stays unused.` },
    },
  }),
  getArtifact: defineRoute({
    operationId: "getArtifact",
    method: "GET",
    path: "/api/v1/actions/{id}/artifacts/{artifactId}",
    summary: "Download a file a code run left in /mnt/out",
    description:
      "The execution's `result.artifacts` lists them (`id`, `name`, `content_type`, `size_bytes`, `sha256`). The bytes come as stored, with that Content-Type: PNG, JPEG, GIF and WebP images `inline`, everything else as an `attachment`; never cached (`Cache-Control: private, no-store`, `X-Content-Type-Options: nosniff`).",
    responses: {
      200: {
        description: "The file's bytes.",
        contentType: "application/octet-stream",
        headers: {
          "Content-Disposition": { description: "`inline` for raster images, otherwise `attachment`, with a safe file name.", type: "string" },
          ETag: { description: "The file's SHA-256 (as in result.artifacts), quoted.", type: "string" },
        },
      },
      401: ERR[401],
      404: { description: "No such artifact of an action of this key (unknown ids, another action's and other tenants' artifacts look the same)." },
      429: ERR[429],
    },
  }),
  cancelAction: defineRoute({
    operationId: "cancelAction",
    method: "POST",
    path: "/api/v1/actions/{id}/cancel",
    summary: "Withdraw a pending or approved (unexecuted) action",
    body: CancelBodySchema,
    responses: {
      200: { description: "Cancelled.", schema: CancelResponseSchema },
      ...ERR,
      403: { description: crossSite403 },
      409: { description: "Already decided past cancelling (not_cancellable)." },
    },
  }),
  openApi: defineRoute({
    operationId: "getOpenApiDocument",
    method: "GET",
    path: "/api/v1/openapi.json",
    summary: "This document",
    public: true,
    responses: { 200: { description: "OpenAPI 3.2 document." } },
  }),
  openApi31: defineRoute({
    operationId: "getOpenApi31Document",
    method: "GET",
    path: "/api/v1/openapi-3.1.json",
    summary: "This document as OpenAPI 3.1, for tools that do not read 3.2",
    description: "The same routes and schemas; only the execute stream's line-by-line `itemSchema` (a 3.2 keyword) is left out, its `schema` (an array of events) stays.",
    public: true,
    responses: { 200: { description: "OpenAPI 3.1 document." } },
  }),
};

/** The execution stream's line schema, documented as a component. */
export const STREAM_EVENT_SCHEMA = StreamEventSchema;
