import { describe, expect, it } from "vitest";
import { bulkRefusal, isBulkCandidate } from "./bulk-eligibility";

const low = { riskLevel: "low", stepKey: "step-1" };

describe("bulk eligibility", () => {
  it("refuses a batch with a value the console cannot inspect, naming why, and never offers such a row", () => {
    expect(bulkRefusal([low, low])).toBeNull();
    expect(bulkRefusal([low, { ...low, notInspectable: true }])).toMatch(/cannot inspect; open each one and decide it on its own/);
    expect(isBulkCandidate(low)).toBe(true);
    expect(isBulkCandidate({ ...low, notInspectable: true })).toBe(false);
  });
});
