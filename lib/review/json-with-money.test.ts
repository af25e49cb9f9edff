import { describe, expect, it } from "vitest";
import { jsonWithMoney } from "@/lib/review/json-with-money";

describe("JSON with money in major units", () => {
  it("writes what JSON.stringify writes when no money is in it", () => {
    const values = [
      { a: 1, b: [1, "two", { c: null, d: [] }], e: {}, f: true, g: "quote \" and \\n" },
      [],
      "text",
      null,
      [[1, 2], [{ x: 1 }]],
      { nested: { deeper: { deepest: [1, { k: "v" }] } } },
    ];
    for (const value of values) expect(jsonWithMoney(value)).toBe(JSON.stringify(value, null, 2));
  });

  it("follows each minor-units field with its major units, the value itself unchanged", () => {
    const text = jsonWithMoney({ invoice_number: "INV-1043", amount_minor: 45_000, reason: "Returned" });
    expect(text).toBe(['{', '  "invoice_number": "INV-1043",', '  "amount_minor": 45000, // 450.00', '  "reason": "Returned"', '}'].join("\n"));
    expect(JSON.parse(text.replace(" // 450.00", ""))).toEqual({ invoice_number: "INV-1043", amount_minor: 45_000, reason: "Returned" });
  });

  it("names the currency its object names, at any depth, and leaves non-integers and other fields alone", () => {
    const text = jsonWithMoney({ invoice: { currency: "EUR", amount_paid_minor: 2_500_000, amount_refunded_minor: 200 }, other_minor: "12", ratio_minor: 1.5 });
    expect(text).toContain('"amount_paid_minor": 2500000, // 25,000.00 EUR');
    expect(text).toContain('"amount_refunded_minor": 200 // 2.00 EUR');
    expect(text).toContain('"other_minor": "12",\n');
    expect(text).toContain('"ratio_minor": 1.5\n');
  });

  it("a string that looks like a comment stays inside its quotes", () => {
    expect(jsonWithMoney({ note: "x // 450.00" })).toBe(JSON.stringify({ note: "x // 450.00" }, null, 2));
  });
});
