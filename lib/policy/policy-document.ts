import { z } from "zod";
import { ALL_ROLES, READ_ONLY_ROLES } from "@/lib/roles/permissions";
import { DURATION_HINT, parsePolicyDuration } from "./policy-duration";
import { SLACK_CHANNEL_ID } from "@/lib/slack/slack-channel-id";

export const EFFECTS = ["allow", "require_approval", "deny"] as const;
export type Effect = (typeof EFFECTS)[number];

export const TIERS = ["standard", "elevated", "critical"] as const;

/** A revision's risk levels, lowest first (lib/risk). */
export const RISK_LEVELS = ["low", "medium", "high", "critical"] as const;
export type RiskLevelName = (typeof RISK_LEVELS)[number];

/** `required`: approving asks the reviewer's passkey to sign a receipt of exactly what they approve. */
export const SIGNATURE_REQUIREMENTS = ["required", "none"] as const;
export type Tier = (typeof TIERS)[number];

/** Isolation a rule can require of code, beyond what the console uses by default. */
export const SANDBOX_REQUIREMENTS = ["gvisor"] as const;
export type SandboxRequirement = (typeof SANDBOX_REQUIREMENTS)[number];

/** Limits chosen so an approval can neither be eternal nor expire before anyone can read it. */
export const TTL_MIN_SECONDS = 60;
export const TTL_MAX_SECONDS = 7 * 24 * 3600;
export const QUORUM_MAX = 10;
export const MIN_VIEW_SECONDS_MAX = 600;
/** No standing grant outlives a day (issue 41); a rule may cap it lower (`grantMaxTtl`). */
export const GRANT_TTL_MAX_SECONDS = 24 * 3600;

const TtlSchema = z.number().int().min(TTL_MIN_SECONDS).max(TTL_MAX_SECONDS);
const QuorumSchema = z.number().int().min(1).max(QUORUM_MAX);
const EligibleRolesSchema = z
  .array(z.enum(ALL_ROLES, { error: `must be one of ${ALL_ROLES.join(", ")}` })
    .refine((role) => !READ_ONLY_ROLES.includes(role), { error: (issue) => `${String(issue.input)}s are read-only and cannot approve` }))
  .min(1)
  .refine((roles) => new Set(roles).size === roles.length, "lists a role twice");

/** Reminders never fire sooner than a minute in, so a reviewer can act before anyone is chased. */
export const REMINDER_MIN_SECONDS = 60;
const DurationSchema = z
  .string({ error: `must be ${DURATION_HINT}` })
  .refine((text) => parsePolicyDuration(text) !== null, { error: (issue) => `"${String(issue.input)}" is not ${DURATION_HINT}` })
  .refine((text) => (parsePolicyDuration(text) ?? 0) >= REMINDER_MIN_SECONDS, "must be at least 1m");

/**
 * Who is told when a pending action has waited `after` (once per revision): every member with
 * `role`, and the Slack `channel` if connected. Any role may be told; who may decide is unchanged.
 */
export const EscalationSchema = z.strictObject({
  after: DurationSchema,
  role: z.enum(ALL_ROLES, { error: `must be one of ${ALL_ROLES.join(", ")}` }),
  channel: z.string().regex(SLACK_CHANNEL_ID, "use the Slack channel's id (like C0123ABCD, from the channel's details), not its name").optional(),
});

export const PolicyRuleSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9_.-]{0,63}$/, "use 1–64 of a-z 0-9 _ . - (starting with a letter or digit)"),
  /** CEL over `args`, `ctx`, `tool`; absent means the rule always matches. */
  when: z.string().trim().min(1).max(2000).optional(),
  effect: z.enum(EFFECTS),
  quorum: QuorumSchema.optional(),
  eligibleRoles: EligibleRolesSchema.optional(),
  ttlSeconds: TtlSchema.optional(),
  tier: z.enum(TIERS).optional(),
  /** `required`: each approval must be signed with the reviewer's passkey (require_approval rules only). */
  signature: z.enum(SIGNATURE_REQUIREMENTS).optional(),
  /**
   * Code this rule matches must run under gVisor (the "gvisor" isolation level); where gVisor
   * cannot run, the code is denied with the reason instead of running under a weaker level.
   */
  sandbox: z.enum(SANDBOX_REQUIREMENTS, { error: `must be ${SANDBOX_REQUIREMENTS.join(" or ")}` }).optional(),
  /** Approvals of a matching action count only after the reviewer had it on screen this long (reject is never held back). */
  minViewSeconds: z.number().int().min(1).max(MIN_VIEW_SECONDS_MAX).optional(),
  /** Chase a pending action that has waited this long (require_approval rules only). */
  escalate: EscalationSchema.optional(),
  /** Email the eligible reviewers this long before a pending action expires (it still expires). */
  warnBeforeExpiry: DurationSchema.optional(),
  /**
   * The longest standing grant ("this and calls like it") reviewers may approve from an action of
   * this rule, at most 24h (the default); "0s" is refused, use grants: "never" instead.
   */
  grantMaxTtl: z.string({ error: `must be ${DURATION_HINT}` })
    .refine((text) => parsePolicyDuration(text) !== null, { error: (issue) => `"${String(issue.input)}" is not ${DURATION_HINT}` })
    .refine((text) => (parsePolicyDuration(text) ?? 0) <= GRANT_TTL_MAX_SECONDS, "must be at most 24h")
    .optional(),
  /** `never`: no standing grant may be approved from an action of this rule. */
  grants: z.enum(["never"]).optional(),
  /** Shown to requesters, reviewers and the agent: why this rule exists. */
  reason: z.string().trim().min(1).max(500),
});

export const ToolPolicySchema = z.strictObject({
  rules: z.array(PolicyRuleSchema).max(100),
});

export const PolicyDefaultsSchema = z.strictObject({
  ttlSeconds: TtlSchema,
  quorum: QuorumSchema,
  eligibleRoles: EligibleRolesSchema,
  /** Approvals of revisions at this risk level or above must be signed with a passkey, whatever the rule says. */
  signatureAtRisk: z.enum(RISK_LEVELS).optional(),
});

export const PolicyDocumentSchema = z.strictObject({
  version: z.number().int().min(0).optional(),
  defaults: PolicyDefaultsSchema,
  // Built-in tools are snake_case; upstream MCP tools are `<server>__<tool>` (OpenAI function-name characters).
  tools: z.record(z.string().regex(/^[a-z][\w-]{0,63}$/, "tool names start with a-z, then up to 63 of A-Z a-z 0-9 _ -"), ToolPolicySchema),
  /** Python modules the sandbox pre-scan blocks; absent → the scanner's defaults. */
  bannedModules: z
    .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$/, "not a Python module name"))
    .max(200)
    .optional(),
});

export type Escalation = z.infer<typeof EscalationSchema>;
export type PolicyRule = z.infer<typeof PolicyRuleSchema>;
export type ToolPolicy = z.infer<typeof ToolPolicySchema>;
export type PolicyDefaults = z.infer<typeof PolicyDefaultsSchema>;
export type Policy = z.infer<typeof PolicyDocumentSchema>;
