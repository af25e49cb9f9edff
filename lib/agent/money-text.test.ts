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
