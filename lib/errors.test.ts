import { describe, expect, it } from "vitest";
import { z } from "zod";
import { describeInvalid, MAX_LISTED_ISSUES } from "@/lib/errors";

describe("describeInvalid", () => {
  it("lists the first problems and counts the rest", () => {
    const result = z.array(z.string()).safeParse(Array.from({ length: 500 }, (_, i) => i));
    if (result.success) throw new Error("expected a failure");
    const text = describeInvalid(result.error);
    expect(text.match(/expected string/g)).toHaveLength(MAX_LISTED_ISSUES);
    expect(text).toMatch(/… and 480 more problems$/);
  });

  it("keeps a single enormous problem short", () => {
    const keys = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`key_${i}`, i]));
    const result = z.strictObject({}).safeParse(keys);
    if (result.success) throw new Error("expected a failure");
    expect(describeInvalid(result.error).length).toBeLessThanOrEqual(2_000);
  });

  it("is zod's own wording when there is little to say", () => {
    const result = z.object({ n: z.number() }).safeParse({ n: "x" });
    if (result.success) throw new Error("expected a failure");
    expect(describeInvalid(result.error)).toBe(z.prettifyError(result.error));
  });
});
