import { boundedPath, RISK_RANK, type RiskTag } from "@/lib/risk/risk-tag";

/**
 * A finding lists at most this many fields; `moreFields` counts the rest. A group gathers every tag
 * with its id (100 `url.unknown-host` tags are 100 fields), and revisions stored before paths were
 * bounded may hold thousands of fields in one path.
 */
export const MAX_GROUP_FIELDS = 10;

/** One finding as a person reads it: a tag id once, with the fields it was found in. */
export type GroupedRiskTag = RiskTag & {
  /** The first MAX_GROUP_FIELDS distinct fields, each at most MAX_TAG_PATH characters. */
  fields: string[];
  /** How many more distinct fields the finding was found in than `fields` lists. */
  moreFields: number;
};

/**
 * Tags with the same id become one finding listing its fields (code scan findings stay per line),
 * highest severity first, each keeping its most severe tag's reason and quote. One pass, also for
 * stored paths of any length.
 */
export function groupRiskTags(tags: readonly RiskTag[]): GroupedRiskTag[] {
  const groups = new Map<string, { group: GroupedRiskTag; seen: Set<string> }>();
  const sorted = [...tags].sort((a, b) => RISK_RANK[b.severity] - RISK_RANK[a.severity]);
  for (const tag of sorted) {
    const key = tag.line === undefined ? tag.id : `${tag.id}\u0000${tag.line}`;
    let entry = groups.get(key);
    if (!entry) {
      entry = { group: { ...tag, fields: [], moreFields: 0 }, seen: new Set() };
      groups.set(key, entry);
    } else {
      entry.group.quote ??= tag.quote;
    }
    const { group, seen } = entry;
    const fields = typeof tag.path === "string" && tag.path ? tag.path.split(", ") : [];
    for (const field of fields) {
      if (seen.has(field)) continue;
      seen.add(field);
      if (group.fields.length < MAX_GROUP_FIELDS) group.fields.push(boundedPath(field));
      else group.moreFields++;
    }
  }
  return [...groups.values()].map(({ group: g }) => ({ ...g, path: g.fields.length ? g.fields.join(", ") : g.path }));
}

/** What follows a finding's listed fields: " and N more field(s)", or nothing when it lists them all. */
export function moreFieldsText(moreFields: number): string {
  return moreFields > 0 ? ` and ${moreFields} more ${moreFields === 1 ? "field" : "fields"}` : "";
}
