import { describe, expect, it } from "vitest";
import { safeCallbackPath } from "@/lib/auth/safe-callback-path";

const ORIGIN = "http://127.0.0.1:3000";

describe("safeCallbackPath", () => {
  it.each([
    ["/tasks", "/tasks"],
    ["/tasks/abc?tab=timeline#decisions", "/tasks/abc?tab=timeline#decisions"],
    ["/queue?sort=risk&x=%2F%2Fevil.example", "/queue?sort=risk&x=%2F%2Fevil.example"],
    ["/a/./b/../c", "/a/c"],
    ["/%09/evil.example", "/%09/evil.example"],
  ])("keeps the same-origin path %j as %j", (raw, expected) => {
    expect(safeCallbackPath(raw)).toBe(expected);
  });

  it.each([
    ["a backslash after the slash", "/\\evil.example"],
    ["a backslash later on", "/tasks\\..\\\\evil.example"],
    ["two backslashes", "\\\\evil.example"],
    ["a tab between the slashes", "/\t/evil.example"],
    ["a newline between the slashes", "/\n/evil.example"],
    ["a carriage return", "/\r/evil.example"],
    ["a NUL", "/\u0000/evil.example"],
    ["a C1 control", "/\u0085/evil.example"],
    ["a leading space", " /tasks"],
    ["an ideographic space", "/\u3000/evil.example"],
    ["a line separator", "/\u2028/evil.example"],
    ["a protocol-relative URL", "//evil.example"],
    ["three slashes", "///evil.example"],
    ["a dot segment that leaves two slashes", "/.//evil.example"],
    ["a parent segment that leaves two slashes", "/a/../..//evil.example"],
    ["percent-encoded dot segments", "/%2e%2e//evil.example"],
    ["an absolute URL elsewhere", "https://evil.example/tasks"],
    ["a scheme-relative URL with credentials", "//user:pass@evil.example"],
    ["javascript:", "javascript:alert(1)"],
    ["data:", "data:text/html,<script>alert(1)</script>"],
    ["a bare host", "evil.example"],
    ["a relative path", "tasks"],
    ["an empty string", ""],
  ])("refuses %s", (_what, raw) => {
    expect(safeCallbackPath(raw)).toBe("/");
    expect(safeCallbackPath(raw, { origin: ORIGIN })).toBe("/");
  });

  it("refuses values that are not one string", () => {
    expect(safeCallbackPath(undefined)).toBe("/");
    expect(safeCallbackPath(["/tasks", "//evil.example"])).toBe("/");
    expect(safeCallbackPath(`/${"a".repeat(5000)}`)).toBe("/");
  });

  it("accepts an absolute URL only on the given origin, reduced to its path", () => {
    expect(safeCallbackPath(`${ORIGIN}/queue?sort=risk`, { origin: ORIGIN })).toBe("/queue?sort=risk");
    expect(safeCallbackPath(`${ORIGIN}/queue`)).toBe("/");
    expect(safeCallbackPath("http://127.0.0.1:3001/queue", { origin: ORIGIN })).toBe("/");
    expect(safeCallbackPath("https://127.0.0.1:3000/queue", { origin: ORIGIN })).toBe("/");
    expect(safeCallbackPath("http://user:pw@127.0.0.1:3000/queue", { origin: ORIGIN })).toBe("/");
    expect(safeCallbackPath(`${ORIGIN}/.//evil.example`, { origin: ORIGIN })).toBe("/");
  });
});
