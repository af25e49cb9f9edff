import { describe, expect, it } from "vitest";
import { assertCanonicalizable } from "./assert-canonicalizable";
import { InvalidPayloadError } from "./invalid-payload-error";

function refusal(value: unknown, path?: string): InvalidPayloadError {
  try {
    assertCanonicalizable(value, path === undefined ? {} : { path });
  } catch (e) {
    if (e instanceof InvalidPayloadError) return e;
    throw e;
  }
  throw new Error("expected a refusal");
}

describe("assertCanonicalizable", () => {
  it("accepts plain JSON data, including null-prototype objects", () => {
    const bare = Object.create(null) as Record<string, unknown>;
    bare.a = 1;
    expect(() => assertCanonicalizable({ a: [1, "x", null, true, { b: 2.5 }], bare })).not.toThrow();
  });

  it.each<[string, unknown, string, string | undefined]>([
    ["undefined property", { args: { a: undefined } }, "unsupported_value", "args.a"],
    ["undefined in array", { args: { items: [1, 2, 3, undefined] } }, "unsupported_value", "args.items[3]"],
    ["function", { f: () => 1 }, "unsupported_value", "f"],
    ["symbol", [Symbol("x")], "unsupported_value", "[0]"],
    ["bigint", { n: 1n }, "unsupported_value", "n"],
    ["NaN", { n: NaN }, "non_finite_number", "n"],
    ["Infinity", { n: -Infinity }, "non_finite_number", "n"],
    ["Date", { at: new Date(0) }, "unsupported_value", "at"],
    ["Map", { m: new Map() }, "unsupported_value", "m"],
    ["class instance", { c: new (class Money { x = 1 })() }, "unsupported_value", "c"],
    ["lone surrogate value", { s: "a\ud800" }, "lone_surrogate", "s"],
    ["lone surrogate key", { "\udc00": 1 }, "lone_surrogate", '["\\udc00"]'],
    ["NUL in a value (PostgreSQL cannot store it)", { s: "a\u0000b" }, "nul_character", "s"],
    ["NUL in a key", { items: [{ "k\u0000": 1 }] }, "nul_character", 'items[0]["k\\u0000"]'],
    ["unsafe integer", { amount_minor: 2 ** 53 }, "unsafe_integer", "amount_minor"],
    ["sparse array", { items: [1, , 3] }, "sparse_array", "items[1]"],
    ["__proto__ key", JSON.parse('{"x":{"__proto__":1}}'), "forbidden_key", "x.__proto__"],
    ["constructor key", { constructor: 1 }, "forbidden_key", "constructor"],
    ["top-level undefined", undefined, "unsupported_value", undefined],
  ])("refuses %s", (_label, value, code, path) => {
    const err = refusal(value);
    expect(err.code).toBe(code);
    expect(err.path).toBe(path);
  });

  it("refuses getters (they could answer differently at hash time and at execution)", () => {
    const v = {};
    Object.defineProperty(v, "amount", { get: () => 1, enumerable: true });
    expect(refusal(v).code).toBe("unsupported_value");
  });

  it("refuses cycles and over-deep values", () => {
    const a: Record<string, unknown> = {};
    a.self = a;
    expect(refusal(a).code).toBe("circular_reference");
    let deep: unknown = 1;
    for (let i = 0; i < 70; i++) deep = [deep];
    expect(refusal(deep).code).toBe("too_deep");
  });

  it("allows shared (non-circular) references", () => {
    const shared = { a: 1 };
    expect(() => assertCanonicalizable({ x: shared, y: shared })).not.toThrow();
  });

  it("prefixes paths", () => {
    expect(refusal({ items: [0, NaN] }, "args").path).toBe("args.items[1]");
  });
});
