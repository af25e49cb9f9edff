import { describe, expect, it } from "vitest";
import { groupRiskTags, MAX_GROUP_FIELDS } from "@/lib/risk/group-risk-tags";
import { MAX_TAG_PATH, type RiskTag } from "@/lib/risk/risk-tag";

describe("groupRiskTags", () => {
  it("makes one finding per tag id with every field, most severe first, keeping scan lines apart", () => {
    const tags: RiskTag[] = [
      { id: "provenance.untrusted", severity: "medium", reason: "copied body", source: "provenance", path: "body" },
      { id: "class.pii", severity: "medium", reason: "pii", source: "class" },
      { id: "provenance.untrusted", severity: "high", reason: "copied to", source: "provenance", path: "to" },
      { id: "scan.open-write", severity: "low", reason: "a", source: "scan", line: 3 },
      { id: "scan.open-write", severity: "low", reason: "b", source: "scan", line: 9 },
    ];
    const grouped = groupRiskTags(tags);
    expect(grouped.map((g) => g.id)).toEqual(["provenance.untrusted", "class.pii", "scan.open-write", "scan.open-write"]);
    expect(grouped[0]).toMatchObject({ severity: "high", reason: "copied to", fields: ["to", "body"], moreFields: 0, path: "to, body" });
    expect(grouped[1].fields).toEqual([]);
  });
});

describe("groupRiskTags on stored tags of any size", () => {
  it("lists at most MAX_GROUP_FIELDS distinct fields and counts the rest", () => {
    const tags: RiskTag[] = Array.from({ length: 14 }, (_, i) => ({
      id: "url.unknown-host", severity: "medium", reason: `host ${i}`, source: "argument", path: `links[${i % 12}]`,
    }));
    const [group] = groupRiskTags(tags);
    expect(group.fields).toEqual(Array.from({ length: MAX_GROUP_FIELDS }, (_, i) => `links[${i}]`));
    expect(group.moreFields).toBe(12 - MAX_GROUP_FIELDS);
    expect(group.path).toBe(group.fields.join(", "));
    expect(groupRiskTags([{ id: "class.pii", severity: "medium", reason: "pii", source: "class" }])[0]).toMatchObject({ fields: [], moreFields: 0 });
  });

  // Paths stored before they were bounded: 20 tags of one id, each naming 35,000 fields (half of
  // them shared with the other tags). Deduplicating with Array.includes is ~10^11 comparisons and
  // cannot finish within the test timeout; a Set per group is one pass.
  it("stays linear on 20 tags of 35,000 fields each, and returns a bounded finding", () => {
    const perTag = 35_000;
    const tags: RiskTag[] = Array.from({ length: 20 }, (_, t) => ({
      id: "exfiltration.outside-recipient", severity: t === 0 ? "critical" : "high", reason: `tag ${t}`, source: "injection",
      path: Array.from({ length: perTag }, (_, i) => (i % 2 === 0 ? `to[${i}]` : `cc${t}[${i}]`)).join(", "),
    }));
    const grouped = groupRiskTags(tags);
    expect(grouped).toHaveLength(1);
    const distinct = perTag / 2 + 20 * (perTag / 2);
    expect(grouped[0].fields).toHaveLength(MAX_GROUP_FIELDS);
    expect(grouped[0].moreFields).toBe(distinct - MAX_GROUP_FIELDS);
    expect(grouped[0]).toMatchObject({ severity: "critical", reason: "tag 0" });
    expect(JSON.stringify(grouped).length).toBeLessThan(5_000);
  });

  it("cuts stored fields of 250,000 characters to MAX_TAG_PATH", () => {
    const key = "k".repeat(250_000);
    const tags: RiskTag[] = Array.from({ length: 99 }, (_, i) => ({
      id: "url.unknown-host", severity: "medium", reason: `host ${i}`, source: "argument", path: `${key}[${i}]`,
    }));
    const [group] = groupRiskTags(tags);
    expect(group.fields).toHaveLength(MAX_GROUP_FIELDS);
    expect(group.moreFields).toBe(99 - MAX_GROUP_FIELDS);
    for (const [i, field] of group.fields.entries()) {
      expect(field.length).toBeLessThanOrEqual(MAX_TAG_PATH);
      expect(field).toContain("…");
      expect(field.endsWith(`k[${i}]`)).toBe(true);
    }
    expect(JSON.stringify(group).length).toBeLessThan(5_000);
  });
});
