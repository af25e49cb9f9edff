import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "./canonical-json";
import { InvalidPayloadError } from "./invalid-payload-error";
import type { JsonValue } from "./json-value";
import { parseStrictJson } from "./parse-strict-json";
import { sha256Hex } from "./sha256-hex";

/** IEEE 754 bit pattern (as in RFC 8785 Appendix B) → the double it denotes. */
function fromBits(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

describe("canonicalJson — RFC 8785 Appendix B number serialization", () => {
  const table: Array<[string, string]> = [
    ["0000000000000000", "0"],
    ["8000000000000000", "0"], // -0
    ["0000000000000001", "5e-324"],
    ["8000000000000001", "-5e-324"],
    ["7fefffffffffffff", "1.7976931348623157e+308"],
    ["ffefffffffffffff", "-1.7976931348623157e+308"],
    ["4340000000000000", "9007199254740992"],
    ["c340000000000000", "-9007199254740992"],
    ["4430000000000000", "295147905179352830000"],
    ["44b52d02c7e14af5", "9.999999999999997e+22"],
    ["44b52d02c7e14af6", "1e+23"],
    ["44b52d02c7e14af7", "1.0000000000000001e+23"],
    ["444b1ae4d6e2ef4e", "999999999999999700000"],
    ["444b1ae4d6e2ef4f", "999999999999999900000"],
    ["444b1ae4d6e2ef50", "1e+21"],
    ["3eb0c6f7a0b5ed8c", "9.999999999999997e-7"],
    ["3eb0c6f7a0b5ed8d", "0.000001"],
    ["41b3de4355555553", "333333333.3333332"],
    ["41b3de4355555554", "333333333.33333325"],
    ["41b3de4355555555", "333333333.3333333"],
    ["41b3de4355555556", "333333333.3333334"],
    ["41b3de4355555557", "333333333.33333343"],
    ["becbf647612f3696", "-0.0000033333333333333333"],
    ["43143ff3c1cb0959", "1424953923781206.2"],
  ];
  it.each(table)("0x%s → %s", (bits, expected) => {
    expect(canonicalJson(fromBits(bits))).toBe(expected);
  });

  it("refuses NaN and ±Infinity (0x7fffffffffffffff, 0x7ff0000000000000)", () => {
    for (const bits of ["7fffffffffffffff", "7ff0000000000000", "fff0000000000000"]) {
      expect(() => canonicalJson(fromBits(bits))).toThrow(InvalidPayloadError);
    }
  });

  it("serializes the section 3.2.2.3 / values.json literals", () => {
    expect(canonicalJson(1e30)).toBe("1e+30");
    expect(canonicalJson(4.5)).toBe("4.5");
    expect(canonicalJson(2e-3)).toBe("0.002");
    expect(canonicalJson(0.000000000000000000000000001)).toBe("1e-27");
    expect(canonicalJson(-0)).toBe("0");
  });

  it("parses leading-zero mantissas with long exponents to the same double", () => {
    // The es6 testdata style: many digits, exponent pulling them back into range.
    const value = Number(`${"0".repeat(80)}1e-5`);
    expect(canonicalJson(value)).toBe("0.00001");
    expect(canonicalJson(Number(`0.${"0".repeat(300)}1e300`))).toBe("0.1");
  });
});

describe("canonicalJson — RFC 8785 testdata (input → output)", () => {
  const vectors: Array<[string, string, string]> = [
    ["arrays", '[56, {"d": true, "10": null, "1": [ ]}]', '[56,{"1":[],"10":null,"d":true}]'],
    [
      "structures",
      `{
  "1": {"f": {"f": "hi","F": 5} ,"\\n": 56.0},
  "10": { },
  "": "empty",
  "a": { },
  "111": [ {"e": "yes","E": "no" } ],
  "A": { }
}`,
      '{"":"empty","1":{"\\n":56,"f":{"F":5,"f":"hi"}},"10":{},"111":[{"E":"no","e":"yes"}],"A":{},"a":{}}',
    ],
    [
      "values",
      `{
  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
  "string": "\\u20ac$\\u000F\\u000aA'\\u0042\\u0022\\u005c\\\\\\"\\/",
  "literals": [null, true, false]
}`,
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"\u20ac$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    ],
    ["unicode", '{"Unnormalized Unicode":"A\\u030a"}', '{"Unnormalized Unicode":"A\u030a"}'],
    [
      "weird",
      `{
  "\\u20ac": "Euro Sign",
  "\\r": "Carriage Return",
  "\\u000a": "Newline",
  "1": "One",
  "\\u0080": "Control\\u007f",
  "\\ud83d\\ude02": "Smiley",
  "\\u00f6": "Latin Small Letter O With Diaeresis",
  "\\ufb33": "Hebrew Letter Dalet With Dagesh",
  "</script>": "Browser Challenge"
}`,
      '{"\\n":"Newline","\\r":"Carriage Return","1":"One","</script>":"Browser Challenge",' +
        '"\u0080":"Control\u007f","\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign",' +
        '"\ud83d\ude02":"Smiley","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    ],
  ];
  it.each(vectors)("%s.json", (_name, input, expected) => {
    // JSON.parse here: values.json holds 1E30, which Countersign's input rule (±2^53) refuses.
    expect(canonicalJson(JSON.parse(input) as JsonValue)).toBe(expected);
    if (_name !== "values") expect(canonicalJson(parseStrictJson(input))).toBe(expected);
  });

  it("sorts keys by UTF-16 code units (section 3.2.3 example)", () => {
    const input: JsonValue = {
      "\u20ac": "Euro Sign",
      "\r": "Carriage Return",
      "\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\ud83d\ude00": "Emoji: Grinning Face",
      "\u0080": "Control",
      "\u00f6": "Latin Small Letter O With Diaeresis",
    };
    // U+1F600 (as D83D DE00) sorts before U+FB33, unlike code-point order.
    expect(canonicalJson(input)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
        '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it("is stable under key reordering at any depth", () => {
    const a = parseStrictJson('{"b":1,"a":{"y":[1,{"q":2,"p":3}],"x":null}}');
    const b = parseStrictJson('{"a":{"x":null,"y":[1,{"p":3,"q":2}]},"b":1}');
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(sha256Hex(canonicalJson(a))).toBe(sha256Hex(canonicalJson(b)));
    // …but array order is meaningful.
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });

  it("refuses undefined inside arrays instead of emitting invalid JSON", () => {
    expect(() => canonicalJson([1, undefined] as unknown as JsonValue)).toThrow(/undefined/);
  });
});

describe("sha256Hex", () => {
  it("hashes UTF-8", () => {
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(sha256Hex("\u20ac")).toBe(createHash("sha256").update(Buffer.from([0xe2, 0x82, 0xac])).digest("hex"));
  });
});
