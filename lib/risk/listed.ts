import { RISK_RANK, type RiskLevel } from "@/lib/risk/risk-tag";

/**
 * At most this many risk tags, or scan findings of a kind, are listed; the rest are counted in one
 * more (7,000 findings would be 7,000 tags stored with each revision, and a page of 7,000 notes).
 */
export const MAX_LISTED = 100;

/** The id of the one risk tag that counts the tags not listed one by one. */
export const MORE_TAGS = "more-tags";

/**
 * Which of `items` to list (at most MAX_LISTED) and which to count. Every kind keeps its most severe
 * item, so what a policy matches on is the same as without the cap; the rest go to the most severe,
 * then in order.
 */
export function listed<T extends { severity: RiskLevel }>(items: readonly T[], kindOf: (item: T) => string): { kept: T[]; rest: T[]; worstOfRest: RiskLevel } {
  if (items.length <= MAX_LISTED) return { kept: [...items], rest: [], worstOfRest: "low" };
  // A stable sort: equal severities stay in the given order.
  const bySeverity = [...items].sort((a, b) => RISK_RANK[b.severity] - RISK_RANK[a.severity]);
  const keep = new Set<T>();
  const kinds = new Set<string>();
  for (const item of bySeverity) {
    if (kinds.has(kindOf(item))) continue;
    kinds.add(kindOf(item));
    keep.add(item);
  }
  for (const item of bySeverity) {
    if (keep.size >= MAX_LISTED) break;
    keep.add(item);
  }
  const kept = items.filter((item) => keep.has(item));
  const rest = items.filter((item) => !keep.has(item));
  const worstOfRest = rest.reduce<RiskLevel>((w, item) => (RISK_RANK[item.severity] > RISK_RANK[w] ? item.severity : w), "low");
  return { kept, rest, worstOfRest };
}

/** "recipient.outside-domain ×4,900, url.unknown-host ×2": how many of each kind the rest has. */
export function countsByKind<T>(rest: readonly T[], kindOf: (item: T) => string): string {
  const counts = new Map<string, number>();
  for (const item of rest) counts.set(kindOf(item), (counts.get(kindOf(item)) ?? 0) + 1);
  return [...counts].map(([kind, n]) => `${kind} ×${n.toLocaleString("en")}`).join(", ");
}
