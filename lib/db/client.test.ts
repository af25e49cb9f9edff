import { describe, expect, it } from "vitest";
import { poolSizeFromEnv } from "@/lib/db/client";

describe("DATABASE_POOL_SIZE", () => {
  it("is a whole number of connections, or unset", () => {
    expect(poolSizeFromEnv(undefined)).toBeUndefined();
    expect(poolSizeFromEnv(" ")).toBeUndefined();
    expect(poolSizeFromEnv("5")).toBe(5);
  });

  it("refuses anything else with a message that names the variable", () => {
    for (const raw of ["0", "-3", "2.5", "many", "1e9"]) {
      expect(() => poolSizeFromEnv(raw)).toThrow(`DATABASE_POOL_SIZE must be a whole number from 1 to 1000, not "${raw}".`);
    }
  });
});
