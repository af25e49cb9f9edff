import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { JsonObject } from "@/lib/canonical/json-value";
import { argumentCheck, schemaProblem } from "@/lib/mcp/upstream/argument-validator";

// Each call compiles afresh: the cache is keyed by definition hash.
const checkOf = (schema: JsonObject) => argumentCheck(randomUUID(), () => schema);

// Far past anything a backtracking engine could finish on `^(a+)+$` (2^n paths) within the test
// timeout: these tests can only pass because patterns are matched in linear time.
const LONG = 100_000;

describe("argument patterns from an untrusted schema", () => {
  it("answer a catastrophic pattern on a long argument", () => {
    const schema = { type: "object", properties: { q: { type: "string", pattern: "^(a+)+$" } } };
    expect(schemaProblem(schema)).toBeNull();
    const check = checkOf(schema);
    const result = check({ q: `${"a".repeat(LONG)}!` });
    expect(result.valid).toBe(false);
    expect(result).toMatchObject({ message: expect.stringContaining("must match pattern") });
    expect(check({ q: "a".repeat(LONG) })).toEqual({ valid: true });
    // Of the classic shapes, the ones that differ from the one above.
    expect(checkOf({ type: "string", pattern: "^(a|a)*$" })(`${"a".repeat(LONG)}!`).valid).toBe(false);
    expect(checkOf({ type: "string", pattern: "^(a|aa)+$" })(`${"a".repeat(LONG)}!`).valid).toBe(false);
    expect(checkOf({ type: "string", pattern: "^(\\w+\\s?)*$" })(`${"word ".repeat(LONG / 5)}!`).valid).toBe(false);
  });

  it("answer a catastrophic patternProperties pattern on a long key", () => {
    const schema = {
      type: "object",
      patternProperties: { "^(a+)+$": { type: "number" } },
      additionalProperties: false,
    };
    expect(schemaProblem(schema)).toBeNull();
    const check = checkOf(schema);
    // The key does not match, so it is an additional property.
    expect(check({ [`${"a".repeat(LONG)}!`]: 1 })).toEqual({ valid: false, message: "arguments must NOT have additional properties" });
    // The key matches, so its value is checked against the pattern's schema.
    const matching = check({ ["a".repeat(LONG)]: "one" });
    expect(matching.valid).toBe(false);
    expect(matching).toMatchObject({ message: expect.stringContaining("must be number") });
    expect(check({ aaa: 1 })).toEqual({ valid: true });
  });

  it("check ordinary patterns, formats and unknown keys as before", () => {
    const check = checkOf({
      type: "object",
      properties: {
        repo: { type: "string", pattern: "^[a-z0-9-]+/[a-z0-9._-]+$" },
        issue: { type: "string", pattern: "^#?\\d{1,6}$" },
        email: { type: "string", format: "email" },
        day: { type: "string", format: "date" },
      },
      required: ["repo"],
      additionalProperties: false,
    });
    expect(check({ repo: "acme/widgets", issue: "#42", email: "ops@example.com", day: "2024-02-29" })).toEqual({ valid: true });
    expect(check({ repo: "Acme Widgets" })).toEqual({ valid: false, message: 'arguments/repo must match pattern "^[a-z0-9-]+/[a-z0-9._-]+$"' });
    expect(check({ repo: "acme/widgets", issue: "#1234567" }).valid).toBe(false);
    // An unanchored pattern matches anywhere in the string, as in ECMAScript.
    expect(checkOf({ type: "string", pattern: "b+" })("abbbc")).toEqual({ valid: true });
    expect(check({ repo: "acme/widgets", email: "not an address" })).toEqual({ valid: false, message: 'arguments/email must match format "email"' });
    expect(check({ repo: "acme/widgets", day: "2023-02-29" })).toEqual({ valid: false, message: 'arguments/day must match format "date"' });
    expect(check({ repo: "acme/widgets", extra: true })).toEqual({ valid: false, message: "arguments must NOT have additional properties" });
  });

  it("match Unicode patterns by code point, as ECMAScript's u flag does", () => {
    const letters = checkOf({ type: "string", pattern: "^\\p{L}+$" });
    expect(letters("héllo")).toEqual({ valid: true });
    expect(letters("Ωμέγα")).toEqual({ valid: true });
    expect(letters("h3llo").valid).toBe(false);
    const accents = checkOf({ type: "string", pattern: "^[éè]+\\u00e0$" });
    expect(accents("éèà")).toEqual({ valid: true });
    expect(accents("eà").valid).toBe(false);
    // One astral character is one `.`, not two UTF-16 units.
    const one = checkOf({ type: "string", pattern: "^.$" });
    expect(one("😀")).toEqual({ valid: true });
    expect(one("ab").valid).toBe(false);
    expect(checkOf({ type: "string", pattern: "^\\u{1F600}$" })("😀")).toEqual({ valid: true });
  });

  it("refuse a schema whose patterns cannot be matched in linear time, with the reason", () => {
    for (const [pattern, reason] of [
      ["^(?=a)", "lookahead"],
      ["^(?!a)", "lookahead"],
      ["(?<=a)b", "lookbehind"],
      ["(?<!a)b", "lookbehind"],
      ["^(a)\\1$", "backreference"],
      // RE2JS's own translation would read `\k<n>` as the text "k<n>": refused before it.
      ["^(?<n>a)\\k<n>$", "backreference"],
    ]) {
      const schema = { type: "object", properties: { q: { type: "string", pattern } } };
      const problem = schemaProblem(schema);
      expect(problem, pattern).toContain(reason);
      expect(problem, pattern).toContain("linear-time matcher (RE2) does not support");
      expect(() => checkOf(schema), pattern).toThrow(reason);
    }
    expect(schemaProblem({ type: "object", patternProperties: { "^(?=x)": { type: "number" } } })).toContain("lookahead");
    // A lookalike inside a character class, or escaped, is plain text.
    expect(schemaProblem({ type: "string", pattern: "^[(?=]\\(\\?=\\\\1$" })).toBeNull();
  });

  it("refuse a pattern that is not ECMAScript, or that RE2 cannot express", () => {
    expect(schemaProblem({ type: "string", pattern: "[" })).toMatch(/is not a valid regular expression/);
    // Valid in RE2 but not in ECMAScript with the u flag.
    expect(schemaProblem({ type: "string", pattern: "\\A(?i)x" })).toMatch(/is not a valid regular expression/);
    // Valid ECMAScript that RE2 cannot compile.
    expect(schemaProblem({ type: "string", pattern: "^a{1001}$" })).toMatch(/cannot be run by the linear-time matcher \(RE2\)/);
  });
});
