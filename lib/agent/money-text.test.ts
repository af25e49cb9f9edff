import { describe, expect, it } from "vitest";
import { moneyMentions } from "@/lib/agent/money-text";

describe("moneyMentions", () => {
  it.each([
    ["Refund 450 on INV-1043", [45_000], [false]],
    ["refund 450.00", [45_000], [true]],
    ["refund $12,000 please", [1_200_000], [true]],
    ["refund 12000.00 USD", [1_200_000], [true]],
    ["refund 120.5 dollars", [12_050], [true]],
    ["only 200.00, the rest is fine", [20_000], [true]],
    ["INV-1042 and CUST-001 are not amounts", [], []],
    ["not 180 days, not 50% and not 2 approvers", [], []],
  ])("%s", (text, amounts, money) => {
    const found = moneyMentions(text);
    expect(found.map((m) => m.amountMinor)).toEqual(amounts);
    expect(found.map((m) => m.looksLikeMoney)).toEqual(money);
  });
});

// Each must finish well inside the test timeout with the right amounts (a regex that backtracked
// super-linearly over these would take seconds to minutes).
describe("moneyMentions on 100,000 adversarial characters", () => {
  const n = 100_000;
  const amounts = (text: string) => moneyMentions(text).map((m) => m.amountMinor);

  it("digits too long for an amount, with and without cents or separators", () => {
    expect(amounts("1".repeat(n))).toEqual([]);
    expect(amounts("1".repeat(n) + ".5x")).toEqual([]);
    expect(amounts("1" + ",000".repeat(n / 4))).toEqual([]);
    expect(amounts("1" + ",000".repeat(n / 4) + ",00")).toEqual([]);
  });

  it("runs of spaces, tabs, letters or currency signs around an amount", () => {
    expect(amounts(" ".repeat(n) + "450")).toEqual([45_000]);
    expect(amounts("450" + " ".repeat(n) + "days")).toEqual([]);
    expect(amounts("450" + "\t".repeat(n) + "x")).toEqual([45_000]);
    expect(amounts("a".repeat(n) + " $12")).toEqual([1_200]);
    expect(amounts("$".repeat(n) + "5")).toEqual([500]);
  });

  it("invoice numbers over and over", () => {
    expect(amounts("INV-1 ".repeat(n / 6))).toEqual([]);
    expect(amounts("INV-" + "1".repeat(n))).toEqual([]);
  });
});
