import { describe, expect, it } from "vitest";
import { EndMarkerScanner } from "./docker-files";

describe("EndMarkerScanner", () => {
  it("passes the code's output through and ends at the marker, even split across chunks", async () => {
    const scanner = new EndMarkerScanner("abc123");
    const out = [scanner.push(Buffer.from("line 1\nline 2")), scanner.push(Buffer.from("\n\x1eab")), scanner.push(Buffer.from("c123 0 1")), scanner.push(Buffer.from("\nlate output"))];
    expect(Buffer.concat(out).toString()).toBe("line 1\nline 2\n");
    expect(await scanner.ended).toEqual({ status: 0, files: true });
    expect(scanner.flush().length).toBe(0);
  });

  it("a marker with another run's nonce is just output; a held-back tail is flushed at the end", () => {
    const scanner = new EndMarkerScanner("abc123");
    const passed = scanner.push(Buffer.from("forged \x1eother 0\nend \x1eabc"));
    expect(passed.toString()).toBe("forged \x1eother 0\nend ");
    expect(scanner.flush().toString()).toBe("\x1eabc");
  });

  it("reports the code's exit status and whether files wait", async () => {
    const scanner = new EndMarkerScanner("n");
    scanner.push(Buffer.from("\x1en 3 0\n"));
    expect(await scanner.ended).toEqual({ status: 3, files: false });
  });
});
