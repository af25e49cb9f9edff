import { describe, expect, it } from "vitest";
import { jsonCharsAtMost } from "@/lib/canonical/json-chars";

describe("jsonCharsAtMost", () => {
  it("is about the length of the JSON text of an ordinary value", () => {
    const value = { name: "count", description: "Adds `by` to a counter.", inputSchema: { type: "object", properties: { by: { type: "integer", minimum: 1 } }, required: ["by"] } };
    const exact = JSON.stringify(value).length;
    const estimate = jsonCharsAtMost(value, 1_000_000);
    expect(estimate).toBeGreaterThanOrEqual(exact * 0.8);
    expect(estimate).toBeLessThanOrEqual(exact * 1.5);
  });

  it("gives up at the limit, on wide, long and deep values alike, and answers limit + 1", () => {
    const wide = Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`k${i}`, i]));
    const long = Array.from({ length: 200_000 }, () => "x".repeat(50));
    let deep: unknown = "end";
    for (let i = 0; i < 100_000; i++) deep = [deep]; // a recursive walk would overflow the stack
    for (const value of [wide, long, deep, "y".repeat(1_000_000)]) expect(jsonCharsAtMost(value, 100_000)).toBe(100_001);
    expect(jsonCharsAtMost(deep, 1_000_000)).toBeLessThan(1_000_000);
  });
});
