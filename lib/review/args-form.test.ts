import { describe, expect, it } from "vitest";
import { argsFormFields, majorTextToMinor, minorToMajorText, moneyDraftProblem, parseArgsText, withArg } from "@/lib/review/args-form";
import { requireTool } from "@/lib/tools/registry";
import { toolInputSchema } from "@/lib/tools/tool-input-schema";

const fieldsOf = (tool: string) => argsFormFields(toolInputSchema(requireTool(tool)));

describe("argsFormFields", () => {
  it("gives a refund a text invoice number, a money amount and a text reason, all required", () => {
    expect(fieldsOf("refund_invoice").map((f) => [f.name, f.kind, f.label, f.required])).toEqual([
      ["invoice_number", "text", "Invoice number", true],
      ["amount_minor", "money", "Amount", true],
      ["reason", "text", "Reason", true],
    ]);
  });

  it("gives an email's body a textarea and its optional invoice number a text field that may be left out", () => {
    const fields = fieldsOf("send_email");
    expect(fields.find((f) => f.name === "body")?.kind).toBe("textarea");
    expect(fields.find((f) => f.name === "subject")?.kind).toBe("text");
    const invoice = fields.find((f) => f.name === "invoice_number");
    expect(invoice).toMatchObject({ kind: "text", required: false });
  });

  it("maps enums, booleans, plain numbers and nullable types, and leaves nested values to the JSON view", () => {
    const fields = argsFormFields({
      type: "object",
      required: ["mode"],
      properties: {
        mode: { type: "string", enum: ["fast", "safe"] },
        level: { type: ["string", "null"], enum: ["low", "high", null] },
        notify: { anyOf: [{ type: "boolean" }, { type: "null" }] },
        ratio: { type: "number" },
        count: { type: "integer" },
        fee_minor: { type: "integer" },
        tags: { type: "array", items: { type: "string" } },
        meta: { type: "object" },
      },
    });
    expect(Object.fromEntries(fields.map((f) => [f.name, f.kind]))).toEqual({
      mode: "enum", level: "enum", notify: "boolean", ratio: "number", count: "integer", fee_minor: "money", tags: "json", meta: "json",
    });
    expect(fields.find((f) => f.name === "level")?.options).toEqual(["low", "high"]);
    expect(fields.find((f) => f.name === "mode")?.required).toBe(true);
  });

  it("has no fields for a schema without properties", () => {
    expect(argsFormFields(null)).toEqual([]);
    expect(argsFormFields({ type: "object" })).toEqual([]);
  });
});

describe("major ↔ minor units", () => {
  it("reads major units as integer minor units", () => {
    expect(majorTextToMinor("450.00")).toEqual({ ok: true, minor: 45_000 });
    expect(majorTextToMinor("450.5")).toEqual({ ok: true, minor: 45_050 });
    expect(majorTextToMinor("450")).toEqual({ ok: true, minor: 45_000 });
    expect(majorTextToMinor("450.")).toEqual({ ok: true, minor: 45_000 });
    expect(majorTextToMinor(" 0.07 ")).toEqual({ ok: true, minor: 7 });
    expect(majorTextToMinor("1,000.00")).toEqual({ ok: true, minor: 100_000 });
    expect(majorTextToMinor("12,345,678.90")).toEqual({ ok: true, minor: 1_234_567_890 });
  });

  it("refuses negatives, a third decimal, misplaced commas and words, saying why", () => {
    expect(majorTextToMinor("-5.00")).toEqual({ ok: false, message: "The amount cannot be negative." });
    expect(majorTextToMinor("450.001")).toEqual({ ok: false, message: "At most two decimals (cents)." });
    for (const text of ["1,00.00", "10,00", "4.5.0", "abc", "1e3", "$450"]) {
      expect(majorTextToMinor(text), text).toMatchObject({ ok: false, message: expect.stringContaining("like 450.00") });
    }
    expect(majorTextToMinor("")).toMatchObject({ ok: false });
    expect(majorTextToMinor("99999999999999999999")).toEqual({ ok: false, message: "The amount is too large." });
  });

  it("shows minor units as major units and reads them back unchanged", () => {
    expect(minorToMajorText(45_000)).toBe("450.00");
    expect(minorToMajorText(45_050)).toBe("450.50");
    expect(minorToMajorText(7)).toBe("0.07");
    expect(minorToMajorText(-5)).toBe("-0.05");
    for (const minor of [0, 1, 99, 100, 45_050, 1_200_000]) expect(majorTextToMinor(minorToMajorText(minor))).toEqual({ ok: true, minor });
  });
});

describe("moneyDraftProblem", () => {
  it("refuses an empty required amount and a malformed one, and lets an optional amount be left empty", () => {
    expect(moneyDraftProblem(undefined, true)).toBeNull();
    expect(moneyDraftProblem("300.00", true)).toBeNull();
    expect(moneyDraftProblem(" ", true)).toBe("Enter an amount, like 450.00.");
    expect(moneyDraftProblem("", false)).toBeNull();
    expect(moneyDraftProblem("3.001", false)).toBe("At most two decimals (cents).");
  });
});

describe("the JSON the form rewrites", () => {
  it("parses an object and refuses broken JSON or a non-object with a message", () => {
    expect(parseArgsText('{"a":1}')).toEqual({ ok: true, args: { a: 1 } });
    expect(parseArgsText('{"a":')).toMatchObject({ ok: false, message: expect.stringContaining("does not parse") });
    expect(parseArgsText("[1]")).toEqual({ ok: false, message: "The arguments must be a JSON object; fix it below to use the form." });
  });

  it("sets one argument and keeps the others; undefined removes it", () => {
    const args = { invoice_number: "INV-1043", amount_minor: 45_000, extra: { x: [1] } };
    expect(JSON.parse(withArg(args, "amount_minor", 30_000))).toEqual({ ...args, amount_minor: 30_000 });
    expect(JSON.parse(withArg(args, "extra", undefined))).toEqual({ invoice_number: "INV-1043", amount_minor: 45_000 });
    expect(args.amount_minor).toBe(45_000);
  });
});
