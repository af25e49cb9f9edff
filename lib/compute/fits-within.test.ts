import { describe, expect, it } from "vitest";
import { fitsWithin } from "@/lib/compute/fits-within";

describe("fitsWithin", () => {
  it("takes small values and refuses large ones, however they are nested", () => {
    expect(fitsWithin({ invoice_number: "INV-1042" }, 4_096)).toBe(true);
    expect(fitsWithin({ note: "x".repeat(5_000) }, 4_096)).toBe(false);
    expect(fitsWithin([[["x".repeat(5_000)]]], 4_096)).toBe(false);
    expect(fitsWithin({ ["k".repeat(5_000)]: 1 }, 4_096)).toBe(false);
    expect(fitsWithin(Array.from({ length: 1_000 }, () => 1), 4_096)).toBe(false);
  });

  it("stops early on a huge value", () => {
    const huge = Array.from({ length: 1_000_000 }, (_, i) => ({ i }));
    const started = performance.now();
    expect(fitsWithin(huge, 4_096)).toBe(false);
    expect(performance.now() - started).toBeLessThan(500);
  });
});
