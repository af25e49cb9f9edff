import { describe, expect, it } from "vitest";
import { MORE_TAGS } from "@/lib/risk/listed";
import { boundedPath, MAX_TAG_PATH, type RiskTag } from "@/lib/risk/risk-tag";
import { diffCode, diffFields, listedChanges, removedTags } from "./payload-diff";

const lines = (count: number, line: (i: number) => string) => Array.from({ length: count }, (_, i) => line(i)).join("\n") + "\n";

describe("diffCode", () => {
  it("shows runs of added, removed and unchanged lines", () => {
    expect(diffCode("a\nb\nc\n", "a\nB\nc\nd\n")).toEqual([
      { kind: "same", text: "a" },
      { kind: "removed", text: "b" },
      { kind: "added", text: "B" },
      { kind: "same", text: "c" },
      { kind: "added", text: "d" },
    ]);
    expect(diffCode("x\ny\nz\n", "x\n\nY\nZ\n")).toEqual([
      { kind: "same", text: "x" },
      { kind: "removed", text: "y\nz" },
      { kind: "added", text: "\nY\nZ" },
    ]);
    expect(diffCode("", "x = 1\n")).toEqual([{ kind: "added", text: "x = 1" }]);
  });

  // Myers' diff on these took minutes; past its bound the code is shown replaced whole.
  describe("on 100,000-character versions, a few runs (stored with the revision), not a record per line", () => {
    it("two unrelated versions: the whole code replaced", () => {
      const before = lines(50_000, (i) => "ab"[i % 2]);
      const after = lines(50_000, (i) => "cd"[i % 2]);
      expect(diffCode(before, after)).toEqual([
        { kind: "removed", text: before.slice(0, -1) },
        { kind: "added", text: after.slice(0, -1) },
      ]);
    });

    it("a large new version after an empty one: every line added", () => {
      const after = lines(50_000, (i) => `l${i}`);
      expect(diffCode("", after)).toEqual([{ kind: "added", text: after.slice(0, -1) }]);
    });

    it("one changed line among 50,000: still a line-by-line diff", () => {
      const before = lines(50_000, (i) => `l${i}`);
      const diff = diffCode(before, before.replace("\nl25000\n", "\nchanged\n"));
      expect(diff.map((run) => run.kind)).toEqual(["same", "removed", "added", "same"]);
      expect(diff.filter((l) => l.kind !== "same")).toEqual([
        { kind: "removed", text: "l25000" },
        { kind: "added", text: "changed" },
      ]);
      expect(diff[0].text.split("\n")).toHaveLength(25_000);
      expect(diff[3].text.split("\n")).toHaveLength(24_999);
    });
  });
});

describe("removedTags", () => {
  const tag = (id: string, path?: string): RiskTag => ({ id, severity: "medium", source: "argument", reason: id, ...(path ? { path } : {}) });
  const more: RiskTag = { id: MORE_TAGS, severity: "medium", source: "argument", reason: "more" };

  it("names a tag an edit took away, by id and field", () => {
    const before = [tag("recipient.outside-domain", "to"), tag("provenance.untrusted", "to"), tag("recipient.outside-domain", "cc")];
    const after = [tag("recipient.outside-domain", "to")];
    expect(removedTags(before, after).map((t) => `${t.id} ${t.path}`)).toEqual(["provenance.untrusted to", "recipient.outside-domain cc"]);
  });

  // The new revision lists 100 of its tags; one it counts in more-tags is not one the edit removed.
  it("never calls a tag removed when the new revision may only have counted it", () => {
    const before = [tag("recipient.outside-domain", "cc"), tag("provenance.untrusted", "body")];
    const after = [tag("recipient.outside-domain", "to"), more];
    expect(removedTags(before, after).map((t) => t.id)).toEqual(["provenance.untrusted"]);
    expect(removedTags(before, [tag("recipient.outside-domain", "to")]).map((t) => `${t.id} ${t.path}`)).toEqual(["recipient.outside-domain cc", "provenance.untrusted body"]);
  });

  // Revisions stored before tag paths were bounded (MAX_TAG_PATH) hold paths of any length.
  it("compares a stored long path as its bounded form, and never carries a long path forward", () => {
    const long = `args.${"k".repeat(250_000)}[3]`;
    const before = [tag("url.unknown-host", long), tag("provenance.untrusted", long)];
    const after = [tag("url.unknown-host", boundedPath(long))];
    const removed = removedTags(before, after);
    expect(removed.map((t) => t.id)).toEqual(["provenance.untrusted"]);
    expect(removed[0].path).toBe(boundedPath(long));
    expect(removed[0].path!.length).toBeLessThanOrEqual(MAX_TAG_PATH);
  });
});

describe("listedChanges", () => {
  it("lists at most 100 changed fields, in path order, and counts the rest", () => {
    const before = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`p${String(i).padStart(4, "0")}`, i]));
    const after = Object.fromEntries(Object.entries(before).map(([k, v]) => [k, v + 1]));
    const { listed, more } = listedChanges(diffFields(before, after));
    expect(listed.map((c) => c.path)).toEqual(Object.keys(before).slice(0, 100));
    expect(more).toBe(4_900);
    expect(listedChanges(diffFields(before, { ...before, p0001: -1 }))).toEqual({ listed: [{ path: "p0001", change: "changed", before: 1, after: -1 }], more: 0 });
  });
});
