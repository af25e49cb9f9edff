"use client";

import { startAuthentication } from "@simplewebauthn/browser";
import { beginSignedApproval } from "@/app/(console)/actions/review-actions";
import { decisionErrorMessage } from "@/lib/review/decision-messages";
import type { GrantTerms } from "@/lib/grants/grant-terms";

type Assertion = Awaited<ReturnType<typeof startAuthentication>>;

/** Asks the reviewer's authenticator to sign the server's receipt of this approval; says why when it did not. */
export async function signApprovalReceipt(actionId: string, payloadHash: string, grant?: GrantTerms): Promise<{ ok: true; assertion: Assertion } | { ok: false; error: string }> {
  const started = await beginSignedApproval({ actionId, payloadHash, grant });
  if (!started.ok) return { ok: false, error: decisionErrorMessage(started.error) };
  try {
    return { ok: true, assertion: await startAuthentication({ optionsJSON: started.data.options }) };
  } catch (error) {
    return { ok: false, error: `Your passkey did not sign the approval (${error instanceof Error ? error.message : "cancelled"}). Nothing was recorded; approve again.` };
  }
}
