import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { configurationTable, ENVIRONMENT, EnvError, environmentProblems, readEnv } from "@/lib/env";

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

describe("the environment module", () => {
  it("reads defaults, trims blanks to absent, and parses values", () => {
    expect(readEnv("SANDBOX_MODE", {})).toBe("auto");
    expect(readEnv("SANDBOX_MODE", { SANDBOX_MODE: " Docker " })).toBe("docker");
    expect(readEnv("DATABASE_POOL_SIZE", { DATABASE_POOL_SIZE: "" })).toBeUndefined();
    expect(readEnv("SANDBOX_MEMORY_MB", { SANDBOX_MEMORY_MB: "512" })).toBe(512);
    expect(readEnv("COUNTERSIGN_PUBLIC_ORIGINS", { COUNTERSIGN_PUBLIC_ORIGINS: "https://a.example/x, https://b.example:8443" }))
      .toEqual(["https://a.example", "https://b.example:8443"]);
  });

  it("reports every problem at once, one line each, never echoing a secret", () => {
    const problems = environmentProblems({ SANDBOX_MODE: "vm", SANDBOX_MEMORY_MB: "lots", NEXTAUTH_SECRET: "short-and-secret", PORT: "3000" });
    expect(problems).toHaveLength(3);
    expect(problems.every((line) => !line.includes("\n"))).toBe(true);
    expect(problems.join(" ")).toMatch(/SANDBOX_MODE="vm"/);
    expect(problems.join(" ")).toMatch(/SANDBOX_MEMORY_MB="lots"/);
    expect(problems.join(" ")).toMatch(/NEXTAUTH_SECRET=\(value hidden\)/);
    expect(problems.join(" ")).not.toContain("short-and-secret");
  });

  it("declares the owner's connection beside the app's, both checked and never echoed", () => {
    const owner = "postgresql://countersign:owner-secret@db.example/countersign";
    expect(readEnv("DATABASE_OWNER_URL", { DATABASE_OWNER_URL: owner })).toBe(owner);
    expect(readEnv("DATABASE_OWNER_URL", { DATABASE_OWNER_URL: " " })).toBeUndefined();
    const problems = environmentProblems({ DATABASE_OWNER_URL: "mysql://countersign:owner-secret@db.example/countersign" });
    expect(problems).toEqual(["DATABASE_OWNER_URL=(value hidden) is not valid: a postgresql:// URL. Fix or unset it."]);
    expect(configurationTable()).toContain("| Database | `DATABASE_OWNER_URL` |");
  });

  it("the README's configuration table is the one generated from the declarations (npm run env:table)", () => {
    const readme = readFileSync(path.join(process.cwd(), "README.md"), "utf8");
    const start = readme.indexOf("<!-- env-table:start -->");
    const end = readme.indexOf("<!-- env-table:end -->");
    expect(start, "README.md needs <!-- env-table:start --> … <!-- env-table:end --> around its configuration table").toBeGreaterThan(-1);
    expect(readme.slice(start + "<!-- env-table:start -->".length, end).trim()).toBe(configurationTable());
  });

  it("parses the process's variables once, and again only when a variable's text changes (vi.stubEnv)", () => {
    const schema = ENVIRONMENT.SANDBOX_MEMORY_MB.schema as z.ZodType;
    const parse = vi.spyOn(schema, "safeParse");
    vi.stubEnv("SANDBOX_MEMORY_MB", "300");
    expect(readEnv("SANDBOX_MEMORY_MB")).toBe(300);
    for (let i = 0; i < 50; i++) readEnv("SANDBOX_MEMORY_MB");
    expect(parse).toHaveBeenCalledTimes(1);

    vi.stubEnv("SANDBOX_MEMORY_MB", "lots");
    expect(() => readEnv("SANDBOX_MEMORY_MB")).toThrow(EnvError);
    expect(() => readEnv("SANDBOX_MEMORY_MB")).toThrow(/SANDBOX_MEMORY_MB="lots"/);
    expect(environmentProblems()).toContainEqual(expect.stringContaining('SANDBOX_MEMORY_MB="lots"'));
    expect(parse).toHaveBeenCalledTimes(2);

    vi.unstubAllEnvs();
    expect(readEnv("SANDBOX_MEMORY_MB")).toBe(readEnv("SANDBOX_MEMORY_MB", { ...process.env }));
    expect(parse).toHaveBeenCalledTimes(4);
  });
});

