import { Environment } from "@marcbachmann/cel-js";
import type { JsonValue } from "@/lib/canonical/json-value";
import { emailRecipientsIn } from "@/lib/risk/email-recipients";
import { isIpLiteral } from "@/lib/risk/ip-literal";

/**
 * What rules may read from `ctx`, with CEL types. The lifecycle fills these from
 * the database (roles, domains) and from lib/risk (riskLevel, riskTags); a rule
 * reading a field that was not supplied fails safe (see evaluatePolicy).
 * The list fields default to [] so `d in ctx.tenantDomains` simply fails to match.
 */
export const POLICY_CONTEXT_FIELDS = {
  requesterRoles: "list<string>",
  amountMinor: "int",
  recipientDomain: "string",
  customerVerifiedDomains: "list<string>",
  tenantDomains: "list<string>",
  riskLevel: "string",
  riskTags: "list<string>",
} as const;

/** Helper functions available to `when` expressions, documented for the admin UI. */
export const POLICY_CEL_FUNCTIONS = {
  "emailDomains(map): list<string>":
    "Lower-cased domains of every address under a recipient-like key of args (to, cc, bcc, recipient(s), email…).",
  "isIpLiteral(string): bool": "True when a host or mail domain is an IP address in any spelling (dotted, decimal, hex, IPv6, [..]).",
} as const;

// Building an Environment is the expensive part of cel-js, so there is one, frozen by clone().
const baseEnvironment = new Environment({
  limits: { maxAstNodes: 500, maxDepth: 32, maxListElements: 200, maxMapEntries: 100, maxCallArguments: 8 },
})
  .registerVariable("args", "map")
  .registerVariable("tool", "string")
  .registerVariable({ name: "ctx", schema: { ...POLICY_CONTEXT_FIELDS } })
  .registerFunction("emailDomains(map): list<string>", (args: unknown) => {
    const domains = emailRecipientsIn(fromCelValue(args), { commsKeys: true }).map((r) => r.domain);
    return [...new Set(domains)];
  })
  .registerFunction("isIpLiteral(string): bool", (host: unknown) => typeof host === "string" && isIpLiteral(host));

export const policyCelEnvironment = baseEnvironment.clone();

/**
 * JSON → CEL: integers become `int` (BigInt) so `args.amount_minor > 100000` is an
 * exact integer comparison and `/` is integer division; other numbers are `double`.
 */
export function toCelValue(v: JsonValue): unknown {
  if (typeof v === "number") return Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(toCelValue);
  if (v !== null && typeof v === "object") {
    return Object.fromEntries(Object.entries(v).map(([k, child]) => [k, toCelValue(child)]));
  }
  return v;
}

/** CEL → JSON-ish, for helper functions that reuse lib/risk's JSON walkers. */
function fromCelValue(v: unknown): JsonValue {
  if (typeof v === "bigint") return Number(v);
  if (typeof v === "string" || typeof v === "number" || typeof v === "boolean" || v === null) return v;
  if (Array.isArray(v)) return v.map(fromCelValue);
  if (v instanceof Map) {
    const out: Record<string, JsonValue> = {};
    for (const [k, child] of v) if (typeof k === "string") out[k] = fromCelValue(child);
    return out;
  }
  if (typeof v === "object" && v !== undefined) {
    const out: Record<string, JsonValue> = {};
    for (const [k, child] of Object.entries(v)) out[k] = fromCelValue(child);
    return out;
  }
  return null;
}
