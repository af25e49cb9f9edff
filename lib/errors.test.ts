import { describe, expect, it } from "vitest";
import { z } from "zod";
import { describeInvalid, inputIssues, MAX_LISTED_ISSUES } from "@/lib/errors";
import { SubmitActionSchema } from "@/lib/api/schemas";

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

describe("describeInvalid on a union (the submit body: a tool call or a code block)", () => {
  const parse = (body: unknown) => {
    const result = SubmitActionSchema.safeParse(body);
    if (result.success) throw new Error("expected a failure");
    return { text: describeInvalid(result.error), issues: inputIssues(result.error) };
  };

  it("names the missing field of the alternative the body is closest to, and the values allowed", () => {
    const { text, issues } = parse({ code: "print(1)" });
    expect(text).toContain('language is missing: send "language": "python"');
    expect(text).toContain("at language");
    expect(text).not.toContain("Invalid input");
    expect(issues).toEqual([expect.objectContaining({ path: ["language"], code: "invalid_value" })]);
    expect(parse({ code: "print(1)", language: "ruby" }).text).toContain('language must be "python"');
  });

  it("reports a tool call's own problems, not the code block's", () => {
    const { issues } = parse({ tool: "send_email" });
    expect(issues.map((i) => i.path.join("."))).toEqual(["args"]);
  });
});
