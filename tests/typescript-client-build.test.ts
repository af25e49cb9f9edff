import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

// The TypeScript client as its README says to install it: `npm pack` in clients/typescript (its
// `prepare` builds dist/ with TypeScript and the SDKs' types, its devDependencies), then
// `npm install <tarball>` in a project of one's own. The plain client must install and load with
// none of the four optional peers; each adapter with its own peer.

const root = path.resolve(import.meta.dirname, "..");
const client = path.join(root, "clients/typescript");
// Outside the repository, so nothing can be found from the repository's node_modules by accident.
const work = mkdtempSync(path.join(os.tmpdir(), "countersign-client-pack-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const PEERS = ["ai", "@langchain/langgraph", "@langchain/core", "@openai/agents"];
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");

function npm(args: string[], cwd: string): string {
  return execFileSync("npm", [...args, "--no-audit", "--no-fund", "--no-update-notifier"], { cwd, encoding: "utf8", stdio: "pipe" });
}

function node(cwd: string, source: string): string {
  return execFileSync(process.execPath, ["--input-type=module", "-e", source], { cwd, encoding: "utf8", stdio: "pipe" });
}

/** Type-checks `file` as a project using the client would (and writes its JS to `outDir`, if given). */
function compile(cwd: string, file: string, options: { skipLibCheck: boolean; outDir?: string }): void {
  const output = options.outDir ? { outDir: options.outDir } : { noEmit: true };
  writeFileSync(path.join(cwd, "tsconfig.json"), JSON.stringify({
    compilerOptions: { strict: true, module: "nodenext", moduleResolution: "nodenext", target: "ES2022", lib: ["ES2022", "DOM"], types: [], skipLibCheck: options.skipLibCheck, ...output },
    files: [file],
  }));
  try {
    execFileSync(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd, encoding: "utf8", stdio: "pipe" });
  } catch (error) {
    throw new Error(`tsc failed on ${file}: ${(error as { stdout?: string }).stdout ?? String(error)}`);
  }
}

/**
 * `npm pack` of a copy of clients/typescript, as in a checkout where `npm install` has run (its
 * devDependencies: the repository's own node_modules). Returns the tarball's path.
 */
function pack(): string {
  const source = path.join(work, "source");
  cpSync(client, source, { recursive: true, filter: (file) => !/[\\/](?:node_modules|dist)$|\.tgz$/.test(file) });
  symlinkSync(path.join(root, "node_modules"), path.join(source, "node_modules"), "dir");
  npm(["pack", "--pack-destination", work], source);
  const [tarball] = readdirSync(work).filter((file) => file.endsWith(".tgz"));
  expect(tarball).toBe("countersign-client-1.0.0.tgz");
  return path.join(work, tarball);
}

const PLAIN = `
import { Countersign, CountersignError, RejectedError } from "@countersign/client";
const cs = new Countersign({ baseUrl: "http://localhost:3000", apiKey: "cs_live_example" });
export const wait = (id: string): Promise<string | null> =>
  cs.waitForDecision(id, { timeoutMs: 1_000 }).then((d) => d.state, (e: unknown) => (e instanceof RejectedError ? e.reason : e instanceof CountersignError ? e.code : null));
`;

// Each adapter used with its SDK; IsAny fails the check if an SDK type the adapter's declarations
// name did not resolve (it would silently be `any` under skipLibCheck).
const ADAPTERS = `
import { Agent, tool as agentsTool } from "@openai/agents";
import { jsonSchema, tool as aiTool } from "ai";
import { END, interrupt, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { Countersign } from "@countersign/client";
import { countersignForAgents, type ResolvableRunState } from "@countersign/client/openai-agents";
import { countersignForAiSdk } from "@countersign/client/ai-sdk";
import { countersignForLangGraph } from "@countersign/client/langgraph";

type IsAny<T> = 0 extends 1 & T ? true : false;
const cs = new Countersign({ baseUrl: "http://localhost:3000", apiKey: "cs_live_example" });
const parameters = { type: "object" as const, properties: { invoice_number: { type: "string" as const } }, required: ["invoice_number"], additionalProperties: false as const };

const agents = countersignForAgents(cs);
export const agent = new Agent({ name: "Billing", tools: [agentsTool({ name: "cancel_invoice", description: "Cancel an invoice", parameters, strict: true, ...agents.tool("cancel_invoice") })] });
const aiSdk = countersignForAiSdk(cs);
export const aiTools = { cancel_invoice: aiTool({ description: "Cancel an invoice", inputSchema: jsonSchema(parameters), execute: aiSdk.execute("cancel_invoice") }) };
const langGraph = countersignForLangGraph(cs, { interrupt });
export const graph = new StateGraph(MessagesAnnotation).addNode("tools", langGraph.toolNode()).addEdge(START, "tools").addEdge("tools", END).compile();

export const resolved: [false, false, false] = [
  false as IsAny<ReturnType<ResolvableRunState["getInterruptions"]>>,
  false as IsAny<Parameters<typeof aiSdk.approvalResponses>[0]>,
  false as IsAny<Parameters<ReturnType<typeof langGraph.toolNode>>[0]["messages"][number]>,
];
console.log(JSON.stringify({ agent: agent.tools.map((t) => t.name), ai: typeof aiTools.cancel_invoice.execute, graph: typeof graph.invoke }));
`;

describe("the TypeScript client, packed and installed as its README says", () => {
  it("installs from the tarball with no peers and imports; each adapter works with its SDK", { timeout: 300_000 }, () => {
    const tarball = pack();

    // What the tarball holds: the built entry points and their types, nothing of the sources.
    const listed = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).trim().split("\n").map((f) => f.replace(/^package\//, "")).sort();
    const entries = ["ai-sdk", "countersign", "gate", "langgraph", "openai-agents"];
    expect(listed).toEqual(["README.md", ...entries.flatMap((e) => [`dist/${e}.d.ts`, `dist/${e}.js`]), "package.json"].sort());

    const consumer = path.join(work, "consumer");
    mkdirSync(consumer);
    writeFileSync(path.join(consumer, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
    // Offline: the client has no dependencies, and npm installs none of its optional peers.
    npm(["install", "--offline", tarball], consumer);
    const installed = path.join(consumer, "node_modules");
    expect(readdirSync(installed).filter((name) => !name.startsWith("."))).toEqual(["@countersign"]);

    // The built files import only one another: the plain client needs no SDK at run time.
    const dist = path.join(installed, "@countersign/client/dist");
    for (const file of readdirSync(dist).filter((f) => f.endsWith(".js"))) {
      const imports = [...readFileSync(path.join(dist, file), "utf8").matchAll(/\bfrom ["']([^"']+)["']|\bimport\(["']([^"']+)["']\)/g)].map((m) => m[1] ?? m[2]);
      expect(imports.filter((s) => !s.startsWith("./")), file).toEqual([]);
    }
    expect(node(consumer, 'console.log(Object.keys(await import("@countersign/client")).sort().join(","))').trim())
      .toBe("Countersign,CountersignError,DeniedError,RateLimitedError,RejectedError");
    // Its types too, declarations checked, with no SDK to be found.
    writeFileSync(path.join(consumer, "plain.ts"), PLAIN);
    compile(consumer, "plain.ts", { skipLibCheck: false });

    // Each adapter with its peer (linked from the repository's node_modules rather than downloaded).
    for (const peer of PEERS) {
      mkdirSync(path.dirname(path.join(installed, peer)), { recursive: true });
      symlinkSync(path.join(root, "node_modules", peer), path.join(installed, peer), "dir");
    }
    writeFileSync(path.join(consumer, "adapters.ts"), ADAPTERS);
    compile(consumer, "adapters.ts", { skipLibCheck: true, outDir: "built" });
    expect(JSON.parse(execFileSync(process.execPath, ["built/adapters.js"], { cwd: consumer, encoding: "utf8" }))).toEqual({
      agent: ["cancel_invoice"], ai: "function", graph: "function",
    });
  });
});
