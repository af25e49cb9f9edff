import type { JsonObject } from "@/lib/canonical/json-value";
import { emailRecipientsIn } from "@/lib/risk/email-recipients";
import { GRANT_TTL_MAX_SECONDS } from "@/lib/policy/policy-document";
import { constraintHolds, type GrantTerms } from "@/lib/grants/grant-terms";
import { grantAmount, grantArgumentName } from "@/lib/grants/grant-amount";

/** The terms offered, and the longest grant the action's rule allows (the form's limit). */
export type GrantDraft = GrantTerms & { maxTtlSeconds: number };

/** A grant's default length when the rule allows that much: an hour. */
const DEFAULT_TTL_SECONDS = 3600;
/** Default limits: ten calls, and ten times this call's amount. */
const DEFAULT_CALLS = 10;

const isAmount = (key: string, value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0 && /amount|_minor$/.test(key);
const isIdentifier = (value: unknown): value is string => typeof value === "string" && /^[A-Za-z0-9_.:-]{1,64}$/.test(value);

/**
 * The terms a reviewer is offered for "this and calls like it", pre-filled from the action: every
 * recipient at the same domains, amounts at most this one (and a total of ten of them), else the
 * same identifiers; ten calls; an hour, or less where the rule caps it. Null: no grant can be
 * approved from it (not an agent's call, or the rule allows none).
 */
export function draftGrantTerms(input: { args: JsonObject; agentCall: boolean; grantMaxSeconds: number | undefined }): GrantDraft | null {
  const cap = Math.min(input.grantMaxSeconds ?? GRANT_TTL_MAX_SECONDS, GRANT_TTL_MAX_SECONDS);
  if (!input.agentCall || cap < 60) return null;
  const code: string[] = [];
  const words: string[] = [];
  const domains = [...new Set(emailRecipientsIn(input.args, { commsKeys: true }).map((r) => r.domain))].sort();
  if (domains.length > 0) {
    code.push(`emailDomains(args).all(d, d in ${JSON.stringify(domains)})`);
    words.push(`every recipient at ${domains.join(" or ")}`);
  }
  const amount = Object.entries(input.args).find(([key, value]) => isAmount(key, value)) as [string, number] | undefined;
  if (amount) {
    code.push(`args.${amount[0]} <= ${amount[1]}`);
    words.push(`${grantArgumentName(amount[0])} at most ${grantAmount(amount[0], amount[1])}`);
  }
  if (code.length === 0) {
    for (const [key, value] of Object.entries(input.args)) {
      if (!/^[a-z][a-z0-9_]*$/.test(key) || !isIdentifier(value)) continue;
      code.push(`args.${key} == ${JSON.stringify(value)}`);
      words.push(`${key} is ${value}`);
    }
  }
  const constraint = code.length > 0 ? code.join(" && ") : "true";
  if (!constraintHolds(constraint, input.args)) return null;
  return {
    constraint, description: words.length > 0 ? words.join(", ") : "any arguments",
    maxCalls: DEFAULT_CALLS, totalArgument: amount && amount[1] > 0 ? amount[0] : null, maxTotal: amount && amount[1] > 0 ? amount[1] * DEFAULT_CALLS : null,
    ttlSeconds: Math.min(DEFAULT_TTL_SECONDS, cap), maxTtlSeconds: cap,
  };
}
