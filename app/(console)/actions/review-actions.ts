"use server";

import { consoleMember } from "@/lib/auth/acting-member";
import { z } from "zod";
import { decideAction, type DecisionOutcome } from "@/lib/approvals/decide-action";
import { editAction } from "@/lib/approvals/edit-action";
import { parseStrictJson } from "@/lib/canonical/parse-strict-json";
import { getDb } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { memberAction } from "@/lib/server/boundary";
import { InvalidPayloadError } from "@/lib/canonical/invalid-payload-error";
import { startSignedApproval } from "@/lib/passkeys/start-signed-approval";
import { AuthenticationResponseSchema } from "@/lib/passkeys/webauthn-schemas";
import { consoleRelyingParty } from "@/lib/server/relying-party";
import { GrantTermsSchema } from "@/lib/grants/grant-terms";
import { revokeGrant } from "@/lib/grants/revoke-grants";

const HashSchema = z.string().regex(/^[0-9a-f]{64}$/, "a payload hash is 64 hex digits");

/** The decision form sends exactly this; the server reloads everything else (SPEC invariant 5). */
const DecideSchema = z.strictObject({
  actionId: z.uuid(),
  payloadHash: HashSchema,
  verdict: z.enum(["approve", "reject"]),
  note: z.string().max(2000).optional(),
  /** The reviewer's passkey assertion over the approval receipt, where the policy requires a signature. */
  assertion: AuthenticationResponseSchema.optional(),
  /** Milliseconds the page showed the arguments before this decision (the vote clamps it). */
  viewedMs: z.number().min(0).optional(),
  /** "This and calls like it": the standing grant's terms, approved with the action (lib/grants). */
  grant: GrantTermsSchema.optional(),
});

export const decideFromConsole = memberAction(
  { name: "decideFromConsole", permission: "actions:decide", input: DecideSchema },
  async (input, member): Promise<DecisionOutcome> =>
    decideAction(getDb(), {
      tenantId: member.tenant.id,
      actionId: input.actionId,
      reviewer: consoleMember(member),
      verdict: input.verdict,
      note: input.note ?? null,
      payloadHash: input.payloadHash,
      viewedMs: input.viewedMs ?? null,
      assertion: input.assertion ? { sessionId: member.session.id, response: input.assertion, relyingParty: await consoleRelyingParty() } : null,
      grant: input.grant,
    }),
);

/** The receipt and passkey request for a signed approval (the server builds the receipt from what it stores). */
export const beginSignedApproval = memberAction(
  { name: "beginSignedApproval", permission: "actions:decide", input: z.strictObject({ actionId: z.uuid(), payloadHash: HashSchema, grant: GrantTermsSchema.optional() }) },
  async (input, member) =>
    startSignedApproval(getDb(), {
      tenantId: member.tenant.id, userId: member.user.id, sessionId: member.session.id, actionId: input.actionId, payloadHash: input.payloadHash,
      relyingParty: await consoleRelyingParty(), grant: input.grant,
    }),
);

const EditSchema = z.strictObject({
  actionId: z.uuid(),
  payloadHash: HashSchema,
  /** The edited arguments as JSON text, parsed strictly on the server (duplicate keys refused). */
  argsJson: z.string().min(2).max(200_000),
});

export const editFromConsole = memberAction(
  { name: "editFromConsole", permission: "actions:decide", input: EditSchema },
  async (input, member) => {
    let args: unknown;
    try {
      args = parseStrictJson(input.argsJson);
    } catch (error) {
      if (error instanceof InvalidPayloadError) throw new AppError("invalid_json", `The arguments are not valid JSON: ${error.message}`, 400);
      throw error;
    }
    if (!args || typeof args !== "object" || Array.isArray(args)) {
      throw new AppError("invalid_json", "The arguments must be one JSON object, like { \"invoice_number\": \"INV-1042\" }.", 400);
    }
    const next = await editAction(getDb(), {
      tenantId: member.tenant.id,
      actionId: input.actionId,
      editor: consoleMember(member),
      payloadHash: input.payloadHash,
      args,
    });
    return { revision: next.revision, status: next.status };
  },
);

/** Revokes a standing grant from its action's page: the statement lets members who may decide, or admins, do it. */
export const revokeGrantFromConsole = memberAction(
  { name: "revokeGrantFromConsole", permission: "actions:read", input: z.strictObject({ id: z.uuid() }) },
  async (input, member) => {
    await revokeGrant(getDb(), { tenantId: member.tenant.id, grantId: input.id, actor: { type: "user", id: member.user.id, label: member.user.email } });
    return { id: input.id };
  },
);
