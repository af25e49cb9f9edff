import { describe, expect, it } from "vitest";
import { poolSizeFromEnv } from "@/lib/db/client";

describe("DATABASE_POOL_SIZE", () => {
  it("is a whole number of connections, or unset", () => {
    expect(poolSizeFromEnv({})).toBeUndefined();
    expect(poolSizeFromEnv({ DATABASE_POOL_SIZE: " " })).toBeUndefined();
    expect(poolSizeFromEnv({ DATABASE_POOL_SIZE: "5" })).toBe(5);
  });

  it("refuses anything else in one line that names the variable and says what to do", () => {
    for (const raw of ["0", "-3", "2.5", "many", "1e9"]) {
      expect(() => poolSizeFromEnv({ DATABASE_POOL_SIZE: raw })).toThrow(new RegExp(`^DATABASE_POOL_SIZE="${raw.replace(".", "\\.")}" is not valid: .*Fix or unset it\\.$`));
    }
  });
});
