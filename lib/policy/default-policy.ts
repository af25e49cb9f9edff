import type { Policy } from "./policy-document";

/** 1,000.00 in minor units: above it a refund needs two reviewers. */
export const REFUND_TWO_APPROVER_THRESHOLD_MINOR = 100_000;
/** 50,000.00 in minor units: above it this console may not refund at all. */
export const REFUND_DENY_THRESHOLD_MINOR = 5_000_000;

/**
 * The policy a new tenant starts with (version 1). Refund amounts are `args.amount_minor`
 * (integer minor units); recipients are what `emailDomains(args)` finds under recipient-like keys.
 */
export const DEFAULT_POLICY: Policy = {
  version: 1,
  defaults: { ttlSeconds: 24 * 3600, quorum: 1, eligibleRoles: ["reviewer"] },
  bannedModules: ["os", "subprocess", "shutil", "socket", "sys"],
  tools: {
    lookup_customer: {
      rules: [
        {
          id: "lookup-customer-read",
          effect: "allow",
          tier: "standard",
          reason: "Reading a customer record of this tenant changes nothing.",
        },
      ],
    },
    get_invoice: {
      rules: [
        {
          id: "get-invoice-read",
          effect: "allow",
          tier: "standard",
          reason: "Reading an invoice of this tenant changes nothing.",
        },
      ],
    },
    get_dataset: {
      rules: [
        {
          id: "get-dataset-read",
          effect: "allow",
          tier: "standard",
          reason: "Reading one of this tenant's small analysis data sets changes nothing.",
        },
      ],
    },
    send_email: {
      rules: [
        {
          id: "send-email-ip-literal",
          when: "emailDomains(args).exists(d, isIpLiteral(d))",
          effect: "deny",
          tier: "critical",
          reason:
            "A recipient is addressed to a raw IP address instead of a domain; that skips every domain check and is a classic exfiltration route.",
        },
        {
          id: "send-email-critical-risk",
          when: "has(ctx.riskLevel) && ctx.riskLevel == 'critical'",
          effect: "require_approval",
          tier: "critical",
          quorum: 2,
          eligibleRoles: ["reviewer"],
          ttlSeconds: 3600,
          reason:
            "Critical risk (e.g. an injected instruction and a recipient outside the known domains, the shape of an exfiltration): two different reviewers must approve.",
        },
        {
          id: "send-email-no-recipient",
          when: "size(emailDomains(args)) == 0",
          effect: "require_approval",
          tier: "elevated",
          quorum: 1,
          eligibleRoles: ["reviewer"],
          ttlSeconds: 3600,
          reason: "No recipient address could be identified in the arguments, so a reviewer must check where this goes.",
        },
        {
          id: "send-email-outside-domain",
          when: "emailDomains(args).exists(d, !(d in ctx.customerVerifiedDomains) && !(d in ctx.tenantDomains))",
          effect: "require_approval",
          tier: "elevated",
          quorum: 1,
          eligibleRoles: ["reviewer"],
          ttlSeconds: 3600,
          reason:
            "A recipient is outside the customer's verified domains and the tenant's own domains; data could leave to a stranger (a typical prompt-injection goal), so the approval is short-lived.",
        },
        {
          id: "send-email-verified",
          effect: "require_approval",
          tier: "standard",
          quorum: 1,
          eligibleRoles: ["reviewer"],
          reason: "Email to the customer's verified domain still leaves the company: one reviewer checks wording and recipient.",
        },
      ],
    },
    cancel_invoice: {
      rules: [
        {
          id: "cancel-invoice",
          effect: "require_approval",
          tier: "elevated",
          quorum: 1,
          eligibleRoles: ["reviewer"],
          reason: "Cancelling an invoice cannot be undone: one reviewer confirms it is the right invoice.",
        },
      ],
    },
    refund_invoice: {
      rules: [
        {
          id: "refund-over-limit",
          when: `args.amount_minor > ${REFUND_DENY_THRESHOLD_MINOR}`,
          effect: "deny",
          tier: "critical",
          reason: "Refunds above 50,000.00 are beyond what this console may approve; they go through the finance back office.",
        },
        {
          id: "refund-large",
          when: `args.amount_minor > ${REFUND_TWO_APPROVER_THRESHOLD_MINOR}`,
          effect: "require_approval",
          tier: "critical",
          quorum: 2,
          eligibleRoles: ["reviewer"],
          reason: "Refunds above 1,000.00 move real money: two different reviewers must approve.",
        },
        {
          id: "refund-small",
          effect: "require_approval",
          tier: "elevated",
          quorum: 1,
          eligibleRoles: ["reviewer"],
          reason: "Refunds up to 1,000.00 move money: one reviewer approves.",
        },
      ],
    },
    run_python: {
      rules: [
        {
          id: "run-python",
          effect: "require_approval",
          tier: "elevated",
          quorum: 1,
          eligibleRoles: ["reviewer"],
          reason: "Code runs in the sandbox: a reviewer reads the code and its scan findings first.",
        },
      ],
    },
  },
};
