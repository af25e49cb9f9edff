import { describe, expect, it } from "vitest";
import { decodeStoredJson, decodeStoredText, encodeStoredJson, encodeStoredText } from "./stored-text";
import { createTestDatabase } from "@/tests/db";
import { Prisma } from "@/lib/generated/prisma/client";
import { query } from "@/lib/db/sql";

const awkward = ["a\u0000b", "\uE000", "\uE0000", "x\uD800y", "\uDC00", "😀 pair", "plain\ttext\n", "\uE000s0041", "", "\u0000\u0000"];

describe("stored text", () => {
  it("round-trips every string, and leaves ordinary text as it is", () => {
    for (const s of awkward) expect(decodeStoredText(encodeStoredText(s))).toBe(s);
    expect(encodeStoredText("hello\nwörld 😀")).toBe("hello\nwörld 😀");
    expect(encodeStoredText("a\u0000b")).not.toContain("\u0000");
    expect(encodeStoredText("x\uD800y")).not.toMatch(/[\uD800-\uDFFF]/u);
    const value = { stdout: "a\u0000b", nested: ["\uD800", { "k\u0000": 1 }], n: 2, t: true, z: null };
    expect(decodeStoredJson(encodeStoredJson(value))).toEqual(value);
  });

  it("what PostgreSQL refuses raw goes into text and jsonb encoded, and comes back exactly", async () => {
    const t = await createTestDatabase();
    try {
      await expect(query(t.db, Prisma.sql`SELECT ${"a\u0000b"}::text AS v`)).rejects.toThrow();
      await expect(query(t.db, Prisma.sql`SELECT ${JSON.stringify({ s: "a\u0000b" })}::jsonb AS v`)).rejects.toThrow();
      for (const s of awkward) {
        const [row] = await query<{ t: string; j: { s: string } }>(t.db, Prisma.sql`
          SELECT ${encodeStoredText(s)}::text AS t, ${JSON.stringify(encodeStoredJson({ s }))}::jsonb AS j`);
        expect(decodeStoredText(row.t)).toBe(s);
        expect(decodeStoredJson(row.j).s).toBe(s);
      }
    } finally {
      await t.drop();
    }
  }, 60_000);
});
