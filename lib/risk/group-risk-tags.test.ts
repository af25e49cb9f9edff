import { describe, expect, it } from "vitest";
import { groupRiskTags } from "@/lib/risk/group-risk-tags";
import type { RiskTag } from "@/lib/risk/risk-tag";

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
    expect(grouped[0]).toMatchObject({ severity: "high", reason: "copied to", fields: ["to", "body"], path: "to, body" });
    expect(grouped[1].fields).toEqual([]);
  });
});
