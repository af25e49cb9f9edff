import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

// The TypeScript client's own build (clients/typescript/tsconfig.json): the core client must stay
// free of dependencies, and the framework adapters may use their SDK's types only — a user of the
// plain client, or of one adapter, must not need the other SDKs installed.

const root = path.resolve(import.meta.dirname, "..");
const client = path.join(root, "clients/typescript");
// Outside the repository, so no node_modules can be found from the built files.
const out = mkdtempSync(path.join(os.tmpdir(), "countersign-client-build-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

function build(): string[] {
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-p", path.join(client, "tsconfig.json"), "--outDir", path.join(out, "dist")], { stdio: "pipe" });
  copyFileSync(path.join(client, "package.json"), path.join(out, "package.json"));
  return readdirSync(path.join(out, "dist")).filter((f) => f.endsWith(".js"));
}

describe("the TypeScript client's build", () => {
  it("compiles, imports nothing but its own files, and every entry point loads without any SDK installed", async () => {
    const files = build();
    expect(files.sort()).toEqual(["ai-sdk.js", "countersign.js", "gate.js", "langgraph.js", "openai-agents.js"]);
    const imports = new Map<string, string[]>();
    for (const file of files) {
      const source = readFileSync(path.join(out, "dist", file), "utf8");
      imports.set(file, [...source.matchAll(/\bfrom ["']([^"']+)["']|\bimport\(["']([^"']+)["']\)/g)].map((m) => m[1] ?? m[2]));
      expect(imports.get(file)!.filter((s) => !s.startsWith("./")), file).toEqual([]);
    }
    expect(imports.get("openai-agents.js")).toEqual(expect.arrayContaining(["./countersign.js", "./gate.js"]));
    expect(readFileSync(path.join(out, "dist", "countersign.js"), "utf8").split("\n").filter((line) => line.startsWith("import "))).toEqual([]);

    // Each entry point of the package, by its published name (the package refers to itself).
    const pkg = JSON.parse(readFileSync(path.join(client, "package.json"), "utf8")) as { name: string; exports: Record<string, unknown> };
    for (const entry of Object.keys(pkg.exports)) {
      const specifier = pkg.name + entry.slice(1);
      const loaded = execFileSync(process.execPath, ["--input-type=module", "-e", `const m = await import(${JSON.stringify(specifier)}); console.log(Object.keys(m).sort().join(","));`], {
        cwd: out,
        encoding: "utf8",
      });
      expect(loaded.trim(), specifier).toMatch(/^[A-Za-z,]+$/);
    }
  });
});
