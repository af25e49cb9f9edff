import { z } from "zod";

/**
 * Every audit event the console writes, by type, with the schema of its `data`: the one list (the
 * type filter and the export derive from it). `auditBodyOf` parses each event's data before it is
 * written; what a statement fills in itself (a vote's revision and tally) the lifecycle tests hold.
 */
const id = z.string().min(1);
const hash = z.string().regex(/^[0-9a-f]{64}$/);
const count = z.number().int().min(0);
const text = z.string();
const effect = z.enum(["allow", "require_approval", "deny"]);

// A budgeted tool's budgets as the call was judged against them (lib/approvals/budgeted-proposals.ts).
const budgetLines = z.array(z.strictObject({
  window: text, measure: z.enum(["count", "sum"]), tool: text, argument: text.nullable(), by: z.enum(["key", "task", "requester", "tenant"]),
  limit: z.number().int().nullable(), usedBefore: z.number().int(), usedAfter: z.number().int(),
}));

// The terms a standing grant was approved with (lib/grants/grant-terms.ts).
const grantTerms = {
  constraint: text, description: text, maxCalls: count.nullable(), totalArgument: text.nullable(), maxTotal: count.nullable(), ttlSeconds: count,
};

// channel: the agent surface a proposal came through, when not the HTTP API or a task (absent
// from events written before the MCP endpoint).
const proposed = z.strictObject({
  revision: count, payloadHash: hash, effect, ruleId: id.nullable(), policyReason: text, policyVersion: count, quorum: count,
  riskTags: z.array(text), taskId: id.nullable(),
  channel: z.literal("mcp").optional(),
  // An agent's submit under an Idempotency-Key (POST /api/v1/actions).
  idempotencyKey: text.optional(),
  budgets: budgetLines.optional(),
  // Allowed without review under a standing grant (lib/grants): which one (its own events say the rest).
  grant: z.strictObject({ id }).optional(),
});
const refusal = z.strictObject({ code: text, message: text, channel: z.literal("mcp").optional() });
const actionRefusal = z.strictObject({ code: text, message: text, actionId: text });
const namedRefusal = z.strictObject({ message: text, actionId: text });
const executionEnded = z.strictObject({
  executionId: id, revision: count, error: text.nullable(),
  // Recorded by the process that ran it:
  isolation: text.nullable().optional(), durationMs: count.optional(), exitCode: z.number().int().nullable().optional(),
  // Recorded by recovery after the process stopped renewing its lease:
  previousOwner: text.nullable().optional(),
});
const requestRefusal = z.strictObject({ operation: text, code: text, message: text, httpStatus: z.number().int() });
// Where a sign-in came from, as the throttle counts it (lib/auth/client-address.ts): the address
// (null when unknown) and its class — the IPv4 address, or the IPv6 /64.
const signInClient = { clientAddress: text.nullable(), clientKey: text };
const signInMethod = z.enum(["password", "oidc"]);
/**
 * A passkey-signed approval (lib/passkeys): the receipt (its canonical JSON's SHA-256 is the
 * WebAuthn challenge), the assertion (base64url) and the public key (DER SPKI, base64) with its
 * COSE algorithm — all scripts/verify-audit-export.mjs needs to check it with Node's crypto alone.
 */
const signedApproval = z.strictObject({
  receipt: z.strictObject({
    v: z.literal(1), tenant: id, action: id, revision: count, payloadHash: hash, policyVersion: count, snapshotHash: hash,
    verdict: z.literal("approve"), expiry: text.nullable(), nonce: id, reviewer: id,
    // The standing grant the approval also approves: its terms' hash (absent: none).
    grant: hash.optional(),
  }),
  receiptHash: hash, passkeyId: id, passkeyName: text, credentialId: id, publicKey: id, algorithm: z.number().int(),
  authenticatorData: id, clientDataJSON: id, signature: id, counter: count,
  userVerified: z.boolean(), backupEligible: z.boolean(), backupState: z.boolean(),
});
const passkeyEvent = { passkeyId: id, name: text, credentialId: id, member: text };
// Failures a caller can repeat without limit are coalesced in each process's memory: one event per
// key, reason and window, written when it closes, with the attempts it stands for.
const coalescedWindow = z.strictObject({ windowSeconds: count, firstAt: text, lastAt: text, scope: z.literal("process") });

export const AUDIT_EVENT_SCHEMAS = {
  "action.proposed": proposed,
  "action.denied": proposed,
  "action.refused": refusal,
  "action.revised": z.strictObject({
    fromRevision: count, revision: count, origin: text, payloadHash: hash, effect, ruleId: id.nullable(), changedFields: z.array(text),
    // Risk tags the previous revision had and this one has not, as "id (field)".
    removedTags: z.array(text).optional(),
    budgets: budgetLines.optional(),
  }),
  "action.expired": z.strictObject({
    revision: count, detectedBy: z.enum(["decision", "execution", "sweeper"]), previousStatus: z.enum(["pending", "approved"]).optional(),
  }),
  // Reminders (lib/notifications): fired once per pending revision by the sweeper's statement.
  // role: who was notified; channel: where else to post it (e.g. a Slack channel), when the rule names one.
  "action.escalated": z.strictObject({ revision: count, role: text, channel: text.optional(), afterSeconds: count }),
  "action.expiry_warned": z.strictObject({ revision: count, roles: z.array(text), warnBeforeSeconds: count, expiresAt: text }),
  // hash_mismatch: the stored payload no longer hashes to the approved hash; state_changed: the
  // state it rested on is gone; arguments_refused: the tool as it is now refuses its arguments
  // (an upstream MCP tool's newly approved schema), `detail` says why.
  "action.invalidated": z.strictObject({
    reason: z.enum(["hash_mismatch", "state_changed", "arguments_refused"]), revision: count, expected: hash.optional(), before: hash.optional(),
    after: hash.optional(), detail: text.optional(),
  }),
  "action.cancelled": z.strictObject({ revision: count, reason: text.nullable() }),
  // An approved action whose approvals stopped counting before it ran, back in the review queue:
  // a member who approved lost their deciding roles, a passkey that signed an approval was
  // removed, or a claim found no quorum (e.g. the approver's user was disabled).
  "action.reopened": z.strictObject({
    revision: count, cause: z.enum(["roles_removed", "passkey_removed", "quorum_lost"]), member: text.optional(), passkeyId: id.optional(),
    approvals: count, quorum: count,
  }),
  // A reopened action approved again without a new vote: a member's deciding roles were given
  // back, so their approval counts again and the approvals make the quorum once more.
  "action.reapproved": z.strictObject({ revision: count, cause: z.literal("roles_restored"), member: text, approvals: count, quorum: count }),
  "action.edit_refused": namedRefusal,
  "action.cancel_refused": namedRefusal,
  "decision.recorded": z.strictObject({
    payloadHash: hash, note: text.nullable(), revision: count, approvals: count, quorum: count,
    // Approvals signed with a passkey (absent from unsigned votes and events written before passkeys).
    signature: signedApproval.optional(),
    /** Time the reviewer had the arguments on screen (ms, clamped), where the client sent it. */
    viewedMs: count.nullable().optional(),
    // A vote cast from a Slack message's button (lib/slack/); absent from console votes.
    channel: z.literal("slack").optional(),
    // The standing grant this approval also approves: its terms and their hash (absent: none).
    grant: z.strictObject({ termsHash: hash, ...grantTerms }).optional(),
  }),
  // A standing grant made by the approvals of its source action (the event's action), each binding its terms.
  "grant.approved": z.strictObject({
    grantId: id, revision: count, termsHash: hash, ...grantTerms, scope: z.strictObject({ apiKeyId: id.optional(), taskId: id.optional() }),
    expiresAt: text, approvedBy: z.array(id),
  }),
  // Revoked by a member, or by the stop button with every other active grant of the tenant.
  "grant.revoked": z.strictObject({ grantId: id, cause: z.enum(["revoked", "agents_paused"]), usedCalls: count, usedTotal: count }),
  "decision.refused": z.strictObject({ code: text, message: text, payloadHash: text, actionId: text, channel: z.literal("slack").optional() }),
  "execution.started": z.strictObject({ executionId: id, revision: count, payloadHash: hash, idempotencyKey: text }),
  "execution.succeeded": executionEnded,
  "execution.failed": executionEnded,
  "execution.unknown": executionEnded,
  "execution.refused": actionRefusal,
  /** No longer written (crashed deliveries are marked unknown, never re-run); kept so older logs still read. */
  "execution.recovering": z.strictObject({ attempt: count, previousOwner: text.nullable(), retry: z.boolean() }),
  "task.started": z.strictObject({ planner: text, instructionLength: count }),
  "task.completed": z.strictObject({ error: text.nullable() }),
  "task.failed": z.strictObject({ error: text.nullable() }),
  "api.refused": requestRefusal,
  "console.refused": requestRefusal,
  "mcp.refused": requestRefusal,
  "api.execute_requested": z.strictObject({ idempotencyKey: text, payloadHash: text.nullable() }),
  "api_key.created": z.strictObject({ name: text, prefix: text, allowedTools: z.array(text) }),
  "api_key.revoked": z.strictObject({ name: text, prefix: text }),
  // An admin act on a key refused where it would have acted (not_admin: the one asking was no
  // longer an admin when it ran). prefix: absent for a key never created.
  "api_key.refused": z.strictObject({
    operation: z.enum(["create", "revoke", "pause", "resume"]), name: text, prefix: text.optional(), reason: z.enum(["not_admin"]),
  }),
  // The stop button (lib/agents-pause/): the tenant's agents, or one API key, paused and resumed.
  "tenant.agents_paused": z.strictObject({ reason: text.nullable() }),
  "tenant.agents_resumed": z.strictObject({ pausedSince: text }),
  // not_admin: the one who pressed it was no longer an admin when its statement ran; nothing changed.
  "tenant.agents_pause_refused": z.strictObject({ operation: z.enum(["pause", "resume"]), reason: z.enum(["not_admin"]) }),
  // Webhook endpoints (lib/webhooks/): registered, secret rotated, removed; a delivery sent again.
  "webhook.endpoint_created": z.strictObject({ url: text, events: z.array(text), allowPrivate: z.boolean() }),
  "webhook.secret_rotated": z.strictObject({ url: text, previousValidUntil: text }),
  "webhook.endpoint_removed": z.strictObject({ url: text }),
  "webhook.redelivered": z.strictObject({ deliveryId: id, eventType: text, messageId: text }),
  // reason: why a destination was refused, or not_admin (with the operation): the one asking was
  // no longer an admin when its statement ran.
  "webhook.refused": z.strictObject({ url: text, reason: text, operation: z.enum(["register", "rotate", "remove", "redeliver"]).optional() }),
  // The Slack app (lib/slack/): configured by an admin, a member's Slack user linked, and every
  // callback refused before it reached a decision (a refused vote is decision.refused). Never a secret.
  "slack.configured": z.strictObject({ channel: text, openOnlyFrom: text, secretsChanged: z.boolean() }),
  // not_admin: the one saving was no longer an admin when its statement ran; nothing changed.
  "slack.configure_refused": z.strictObject({ channel: text, openOnlyFrom: text, reason: z.enum(["not_admin"]) }),
  "slack.user_linked": z.strictObject({ slackTeamId: text, slackUserId: text }),
  // A failed Slack message or notice sent again by an admin (kind: which), or refused (not_admin:
  // the one asking was no longer an admin when its statement ran; nothing changed).
  "slack.resent": z.strictObject({ deliveryId: id, kind: z.enum(["message", "notice"]), actionId: text }),
  "slack.resend_refused": z.strictObject({ deliveryId: id, reason: z.enum(["not_admin"]) }),
  "slack.callback_refused": z.strictObject({
    reason: z.enum(["bad_signature", "old_timestamp", "not_configured", "malformed", "unlinked_user", "bad_link_code", "open_only", "not_found"]),
    message: text, slackTeamId: text.nullable(), slackUserId: text.nullable(), actionId: text.nullable(),
    // Unsigned refusals (bad signature, old timestamp, not configured) are counted per minute.
    attempts: count.optional(), coalesced: coalescedWindow.optional(),
  }),
  "api_key.paused": z.strictObject({ name: text, prefix: text }),
  "api_key.resumed": z.strictObject({ name: text, prefix: text }),
  // sessionsEnded: the member's sessions a lost role ended (absent from events written before sessions ended).
  "member.roles_changed": z.strictObject({ member: text, before: z.array(text), after: z.array(text), sessionsEnded: count.optional() }),
  // A member's reviewer-email preference in this tenant (lib/notifications).
  "member.email_mode_changed": z.strictObject({ before: z.enum(["immediate", "digest"]), after: z.enum(["immediate", "digest"]) }),
  "member.roles_refused": z.strictObject({ member: text, before: z.array(text), requested: z.array(text), reason: z.enum(["last_admin", "not_admin"]) }),
  "policy.saved": z.strictObject({ version: count, baseVersion: count, comment: text.nullable(), tools: z.array(text) }),
  "policy.save_refused": z.strictObject({ baseVersion: count, reason: z.enum(["invalid", "too_complex", "stale_base_version", "not_admin"]), errors: z.array(text).optional() }),
  "audit.exported": z.strictObject({ format: z.enum(["csv", "json", "jsonl"]), filters: text }),
  "audit.evidence_exported": z.strictObject({ from: text, to: text, verified: z.boolean() }),
  // slackUnlinked: the member's Slack link (or a code waiting to link one) in this tenant was removed (absent before it was).
  "account.password_changed": z.strictObject({ otherSessionsEnded: count, slackUnlinked: z.boolean().optional() }),
  "passkey.registered": z.strictObject({ ...passkeyEvent, deviceType: z.enum(["singleDevice", "multiDevice"]), backedUp: z.boolean() }),
  "passkey.removed": z.strictObject(passkeyEvent),
  "account.password_change_refused": z.strictObject({ reason: z.literal("wrong_current_password") }),
  // Written in the transaction that starts the session, in every tenant the user is a member of.
  "auth.signed_in": z.strictObject({ method: signInMethod, sessionId: id, ...signInClient, userAgent: text.nullable() }),
  // Never the password. invalid: wrong password; no_password: the account signs in by SSO only;
  // unverified_email: the SSO provider did not verify the address. attempts: 1, or coalesced.
  "auth.sign_in_failed": z.strictObject({
    method: signInMethod, reason: z.enum(["invalid", "throttled", "disabled", "no_password", "unverified_email", "password_changed"]), ...signInClient,
    attempts: count, coalesced: coalescedWindow.optional(),
  }),
  "auth.signed_out": z.strictObject({ sessionId: id, method: text, clientAddress: text.nullable() }),
  "auth.tenant_switched": z.strictObject({ fromTenantId: id, fromTenant: text, toTenant: text, sessionId: id, via: z.enum(["switcher", "link"]) }),
  // Never the presented secret. tools: for tool_not_allowed, the tools asked for (at most 10).
  "api_key.auth_failed": z.strictObject({
    prefix: text, reason: z.enum(["wrong_secret", "revoked", "tool_not_allowed"]), attempts: count, coalesced: coalescedWindow,
    tools: z.array(text).optional(),
  }),
  // Upstream MCP servers (lib/mcp/upstream). Never a secret's value: its name at most. `tool` is
  // the qualified name agents use (`<server>__<tool>`), also in the event's tool column.
  "mcp.server_registered": z.strictObject({
    server: text, transport: z.enum(["http", "stdio"]), url: text.nullable(), command: text.nullable(), args: z.array(text), secretNames: z.array(text),
  }),
  "mcp.server_removed": z.strictObject({ server: text, tools: count }),
  "mcp.server_secrets_changed": z.strictObject({ server: text, secretNames: z.array(text) }),
  "mcp.tools_listed": z.strictObject({
    server: text, listed: count, added: z.array(text), held: z.array(text), gone: z.array(text), returned: z.array(text), skipped: z.array(text),
  }),
  "mcp.tools_list_failed": z.strictObject({ server: text, code: text, message: text }),
  "mcp.tool_approved": z.strictObject({ server: text, tool: text, definitionHash: hash, previousHash: hash.nullable() }),
  // detectedBy: a refresh an admin asked for, or a forwarded call that found the server changed.
  "mcp.tool_held": z.strictObject({ server: text, tool: text, approvedHash: hash, seenHash: hash, detectedBy: z.enum(["refresh", "execution"]) }),
  "mcp.server_refused": z.strictObject({ operation: text, code: text, message: text }),
} as const satisfies Record<string, z.ZodType<Record<string, unknown>>>;

export type AuditEventType = keyof typeof AUDIT_EVENT_SCHEMAS;
export type AuditEventData<T extends AuditEventType> = z.infer<(typeof AUDIT_EVENT_SCHEMAS)[T]>;

/** Event types the console writes, for the explorer's type filter (the filter accepts any string). */
export const AUDIT_EVENT_TYPES = Object.keys(AUDIT_EVENT_SCHEMAS) as AuditEventType[];

export function isAuditEventType(type: string): type is AuditEventType {
  return Object.hasOwn(AUDIT_EVENT_SCHEMAS, type);
}

/** An event's data read back with its type's schema; `ok: false` for an unknown type or a shape that does not fit. */
export function parseAuditEventData(type: string, data: unknown): { ok: true; data: Record<string, unknown> } | { ok: false; problem: string } {
  if (!isAuditEventType(type)) return { ok: false, problem: `unknown event type ${type}` };
  const parsed = AUDIT_EVENT_SCHEMAS[type].safeParse(data);
  return parsed.success ? { ok: true, data: parsed.data } : { ok: false, problem: z.prettifyError(parsed.error) };
}
