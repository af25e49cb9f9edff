import { RISK_RANK, type RiskTag } from "@/lib/risk/risk-tag";

/** One finding as a person reads it: a tag id once, with every field it was found in. */
export type GroupedRiskTag = RiskTag & { fields: string[] };

/**
 * Tags with the same id become one finding listing its fields (provenance.untrusted on `to` and
 * `body` is one chip, not two); code scan findings stay per line. Highest severity first; each
 * group keeps the reason and quote of its most severe tag.
 */
export function groupRiskTags(tags: readonly RiskTag[]): GroupedRiskTag[] {
  const groups = new Map<string, GroupedRiskTag>();
  const sorted = [...tags].sort((a, b) => RISK_RANK[b.severity] - RISK_RANK[a.severity]);
  for (const tag of sorted) {
    const key = tag.line === undefined ? tag.id : `${tag.id}\u0000${tag.line}`;
    const group = groups.get(key);
    const fields = tag.path ? tag.path.split(", ") : [];
    if (!group) {
      groups.set(key, { ...tag, fields });
      continue;
    }
    for (const field of fields) if (!group.fields.includes(field)) group.fields.push(field);
    group.quote ??= tag.quote;
  }
  return [...groups.values()].map((g) => ({ ...g, path: g.fields.length ? g.fields.join(", ") : g.path }));
}
