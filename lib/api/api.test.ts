import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { readEnv } from "@/lib/env";
import { createTestTenant } from "@/tests/factories";
import { proposeAction } from "@/lib/approvals/propose-action";
import { decideAction } from "@/lib/approvals/decide-action";
import { detectSandbox } from "@/lib/sandbox/select-runner";
import { API_ROUTES } from "@/lib/api/api-routes";
import { buildOpenApiDocument } from "@/lib/api/openapi";
import { consumeRateLimit, createRateLimiter, type RateLimiter } from "@/lib/api/rate-limit";
import { StreamEventSchema, type StreamEvent } from "@/lib/api/schemas";
import { streamExecution } from "@/lib/api/stream-execution";
import { waitForDecision } from "@/lib/api/wait-for-decision";
import { findScopedAction } from "@/lib/api/load-action-view";
import { createApiKey } from "@/lib/api-keys/create-api-key";

const t = setUpTestDatabase();
const a = setUpTestTenant(t);

async function readEvents(stream: ReadableStream<Uint8Array>): Promise<StreamEvent[]> {
  const text = await new Response(stream).text();
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => StreamEventSchema.parse(JSON.parse(line)));
}

async function approvedCode(code: string) {
  const proposed = await proposeAction(t.db, { tenantId: a.id, requester: a.requester, tool: "run_python", args: { code, language: "python" } });
  if (proposed.state !== "pending") throw new Error(`expected pending, got ${proposed.state}`);
  await decideAction(t.db, { tenantId: a.id, actionId: proposed.actionId, reviewer: a.users.reviewer.member, verdict: "approve", payloadHash: proposed.payloadHash });
  return proposed;
}

const actor = { type: "user" as const, id: "00000000-0000-4000-8000-000000000001", label: "reviewer" };

describe("rate limit", () => {
  it("counts every request in a fixed window and says when to retry", async () => {
    const rule = { limit: 3, windowSeconds: 60 };
    const results = await Promise.all(Array.from({ length: 5 }, () => consumeRateLimit(t.db, "test:burst", rule)));
    expect(results.filter((r) => r.allowed)).toHaveLength(3);
    expect(results.map((r) => r.count).sort()).toEqual([1, 2, 3, 4, 5]);
    const refused = results.find((r) => !r.allowed)!;
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60);
    // Another key has its own window.
    expect((await consumeRateLimit(t.db, "test:other", rule)).allowed).toBe(true);
  });

  it("starts over in a new window", async () => {
    await t.db.rateLimitBucket.create({ data: { key: "test:old", windowStart: new Date(Date.now() - 3600_000), count: 999 } });
    const result = await consumeRateLimit(t.db, "test:old", { limit: 2, windowSeconds: 60 });
    expect(result).toMatchObject({ allowed: true, count: 1 });
  });

  // A day-long window (aligned to midnight UTC), so a test never straddles two.
  const day = (limit: number) => ({ limit, windowSeconds: 86_400 });
  // Limiters that reconcile only when a key is new to them or when told to: every step below is deterministic.
  const instances = (n: number): RateLimiter[] => Array.from({ length: n }, () => createRateLimiter(t.db, { syncMs: 3_600_000 }));
  const allowedOf = (results: Array<{ allowed: boolean }>) => results.filter((r) => r.allowed).length;
  const sharedCount = async (key: string) => (await t.db.rateLimitBucket.findUniqueOrThrow({ where: { key } })).count;

  it("refuses a key whose shared count is already past the limit on its first request in this process", async () => {
    await t.db.$executeRaw`INSERT INTO "RateLimitBucket" (key, "windowStart", count)
      VALUES ('test:full', to_timestamp(floor(extract(epoch FROM now()) / 86400) * 86400), 10000)`;
    const [limiter] = instances(1);
    const first = await limiter.consume("test:full", day(120));
    expect(first).toMatchObject({ allowed: false, count: 10_001, limit: 120 });
    expect(first.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(first.retryAfterSeconds).toBeLessThanOrEqual(86_400);
    expect(first.resetAt.getTime()).toBeGreaterThan(Date.now());
    expect(await limiter.consume("test:full", day(120))).toMatchObject({ allowed: false });
  });

  it("counts locally between reconciliations and is exact in one instance; every request reaches the shared count", async () => {
    const [limiter] = instances(1);
    expect(await limiter.consume("test:local", day(20))).toMatchObject({ allowed: true, count: 1 });
    const burst = await Promise.all(Array.from({ length: 30 }, () => limiter.consume("test:local", day(20))));
    expect(allowedOf(burst)).toBe(19);
    // Counted in memory so far: the shared row has the first request only.
    expect(await sharedCount("test:local")).toBe(1);
    await limiter.flush();
    expect(await sharedCount("test:local")).toBe(31);
  });

  it("refuses past the limit across two instances sharing the database once each has reconciled, overshooting by at most what the other admitted unseen", async () => {
    const [a1, a2] = instances(2);
    const rule = day(20);

    // a2 uses up the limit; a1 learns of it at its next reconciliation and refuses from then on.
    expect(await a1.consume("test:learn", rule)).toMatchObject({ allowed: true, count: 1 });
    expect(await a2.consume("test:learn", rule)).toMatchObject({ allowed: true, count: 2 });
    expect(allowedOf(await Promise.all(Array.from({ length: 18 }, () => a2.consume("test:learn", rule))))).toBe(18);
    await a2.flush();
    // Not reconciled since its first request, a1 admits one more (the overshoot: 21 of 20)…
    expect(await a1.consume("test:learn", rule)).toMatchObject({ allowed: true, count: 2 });
    await a1.flush();
    // …and, having read a2's requests, refuses.
    expect(await a1.consume("test:learn", rule)).toMatchObject({ allowed: false, count: 22 });
    expect(await a2.consume("test:learn", rule)).toMatchObject({ allowed: false, count: 21 });

    // Both admit up to the limit by their own view before either has seen the other's requests:
    // the worst case, bounded by what one admitted that the other had not seen.
    expect(await a1.consume("test:shared", rule)).toMatchObject({ allowed: true, count: 1 });
    expect(await a2.consume("test:shared", rule)).toMatchObject({ allowed: true, count: 2 });
    const first = allowedOf(await Promise.all(Array.from({ length: 30 }, () => a1.consume("test:shared", rule))));
    const second = allowedOf(await Promise.all(Array.from({ length: 30 }, () => a2.consume("test:shared", rule))));
    expect([first, second]).toEqual([19, 18]);
    expect(2 + first + second - rule.limit).toBeLessThanOrEqual(first);
    await a1.flush();
    await a2.flush();
    expect(await sharedCount("test:shared")).toBe(62);
    const after = await Promise.all([...Array.from({ length: 5 }, () => a1.consume("test:shared", rule)), ...Array.from({ length: 5 }, () => a2.consume("test:shared", rule))]);
    expect(allowedOf(after)).toBe(0);
    expect(after.every((r) => r.count > rule.limit && r.retryAfterSeconds >= 1)).toBe(true);
  });
});

describe("OpenAPI document", () => {
  const doc = buildOpenApiDocument();

  it("is OpenAPI 3.2 with every route, operation ids unique, every $ref resolving", () => {
    expect(doc.openapi).toBe("3.2.0");
    const operations = Object.entries(doc.paths).flatMap(([p, methods]) => Object.entries(methods).map(([m, op]) => ({ p, m, op: op as Record<string, unknown> })));
    expect(operations.map((o) => `${o.m.toUpperCase()} ${o.p}`).sort()).toEqual(
      Object.values(API_ROUTES).map((r) => `${r.method} ${r.path}`).sort(),
    );
    expect(new Set(operations.map((o) => o.op.operationId)).size).toBe(operations.length);
    for (const { op, p } of operations) {
      expect(Object.keys(op.responses as object).length, p).toBeGreaterThan(0);
      for (const status of Object.keys(op.responses as object)) expect(status).toMatch(/^[1-5]\d\d$/);
      const pathParams = [...p.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const declared = ((op.parameters as Array<{ name: string; in: string; required: boolean }> | undefined) ?? []).filter((x) => x.in === "path");
      expect(declared.map((x) => x.name)).toEqual(pathParams);
      for (const param of declared) expect(param.required).toBe(true);
    }
    const text = JSON.stringify(doc);
    for (const [, ref] of text.matchAll(/"\$ref":"([^"]+)"/g)) {
      expect(ref).toMatch(/^#\/components\/schemas\//);
      expect(doc.components.schemas, ref).toHaveProperty(ref.split("/").at(-1)!);
    }
    expect(text).not.toContain("$defs");
    expect(doc.components.schemas.Error).toMatchObject({ type: "object", required: ["error"] });
  });

  it("describes the request bodies the handlers validate, unknown keys refused", () => {
    const submit = doc.paths["/api/v1/actions"].post as { requestBody: { content: { "application/json": { schema: unknown } } } };
    expect(submit.requestBody.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/SubmitAction" });
    expect(doc.components.schemas.SubmitToolCall).toMatchObject({ additionalProperties: false, required: ["tool", "args"] });
    expect(doc.components.schemas.SubmitCode).toMatchObject({ additionalProperties: false, required: ["code", "language"] });
  });

  it("lists every route handler under app/api/v1, with the methods it exports", () => {
    const root = path.join(process.cwd(), "app/api/v1");
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const full = path.join(dir, name);
        if (statSync(full).isDirectory()) walk(full);
        else if (name === "route.ts") files.push(full);
      }
    };
    walk(root);
    const found = files.flatMap((file) => {
      const routePath = "/api/v1/" + path.relative(root, path.dirname(file)).replace(/\[(\w+)\]/g, "{$1}");
      const source = readFileSync(file, "utf8");
      return [...source.matchAll(/export (?:const|async function|function) (GET|POST|PUT|PATCH|DELETE)\b/g)].map((m) => `${m[1]} ${routePath.replace(/\/$/, "")}`);
    });
    expect(found.sort()).toEqual(Object.values(API_ROUTES).map((r) => `${r.method} ${r.path}`).sort());
  });
});

describe("findScopedAction", () => {
  it("shows a key its own actions only, a member every action of the tenant, and expiry by the database clock", async () => {
    const key = async (name: string) =>
      (await createApiKey(t.db, { tenantId: a.id, name, allowedTools: ["run_python"], createdById: a.users.admin.id })).apiKey;
    const mine = await key("scope-mine");
    const theirs = await key("scope-theirs");
    const proposed = await proposeAction(t.db, {
      tenantId: a.id, requester: { type: "api_key", apiKeyId: mine.id, label: "api:scope-mine" }, tool: "run_python", args: { code: "print(5)", language: "python" },
    });
    if (proposed.state !== "pending") throw new Error("expected pending");
    const scope = { tenantId: a.id, actionId: proposed.actionId };
    expect(await findScopedAction(t.db, { ...scope, apiKeyId: mine.id })).toMatchObject({
      id: proposed.actionId, kind: "code", status: "pending", payloadHash: proposed.payloadHash, expired: false, state: "pending",
    });
    expect(await findScopedAction(t.db, { ...scope, apiKeyId: null })).toMatchObject({ id: proposed.actionId, state: "pending" });
    const other = await createTestTenant(t.db);
    for (const hidden of [{ ...scope, apiKeyId: theirs.id }, { tenantId: other.id, actionId: proposed.actionId, apiKeyId: null }, { ...scope, actionId: "nope", apiKeyId: null }]) {
      await expect(findScopedAction(t.db, hidden)).rejects.toMatchObject({ code: "not_found", status: 404 });
    }
    // Its window closed a moment ago; the sweeper has not run.
    await t.db.$executeRaw`UPDATE "Action" SET "expiresAt" = now() - interval '1 second' WHERE id = ${proposed.actionId}::uuid`;
    expect(await findScopedAction(t.db, { ...scope, apiKeyId: mine.id })).toMatchObject({ status: "pending", expired: true, state: "expired" });
  });
});

describe("waitForDecision", () => {
  it("returns as soon as a reviewer decides, and times out with decided: false", async () => {
    const proposed = await proposeAction(t.db, { tenantId: a.id, requester: a.requester, tool: "run_python", args: { code: "print(2)", language: "python" } });
    if (proposed.state !== "pending") throw new Error("expected pending");
    const scope = { tenantId: a.id, actionId: proposed.actionId, apiKeyId: null };
    const timedOut = await waitForDecision(t.db, scope, { timeoutSeconds: 0.3, pollMs: 100 });
    expect(timedOut).toMatchObject({ state: "pending", decided: false });

    // Its own limit is an hour, far past this test's: it can only end here by seeing the decision
    // (a time bound would depend on how busy the machine is).
    const waiting = waitForDecision(t.db, scope, { timeoutSeconds: 3600, pollMs: 100 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await decideAction(t.db, { tenantId: a.id, actionId: proposed.actionId, reviewer: a.users.reviewer.member, verdict: "reject", note: "Not today", payloadHash: proposed.payloadHash });
    const decided = await waiting;
    expect(decided).toMatchObject({ state: "rejected", decided: true, reason: "Not today" });
  });

  it("stops when the client goes away", async () => {
    const proposed = await proposeAction(t.db, { tenantId: a.id, requester: a.requester, tool: "run_python", args: { code: "print(3)", language: "python" } });
    if (proposed.state !== "pending") throw new Error("expected pending");
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 200);
    // Nobody decides and its own limit is an hour, far past this test's: it can only end by noticing the abort.
    const result = await waitForDecision(t.db, { tenantId: a.id, actionId: proposed.actionId, apiKeyId: null }, { timeoutSeconds: 3600, signal: abort.signal });
    expect(result.decided).toBe(false);
    expect(abort.signal.aborted).toBe(true);
  });
});

describe("streamExecution", async () => {
  const sandbox = await detectSandbox({ fresh: true });
  // As the sandbox suites do: no sandbox fails these, unless SANDBOX_TESTS=skip-docker says to skip.
  const needSandbox = (ctx: { skip: (note?: string) => void }) => {
    if (!sandbox.available && readEnv("SANDBOX_TESTS") === "skip-docker") ctx.skip(`no sandbox here: ${sandbox.reason}`);
    expect(sandbox.available, sandbox.reason).toBe(true);
  };

  it("streams output lines then a result, and a second call replays the record without running again", async (ctx) => {
    needSandbox(ctx);
    const proposed = await approvedCode('print("hello")\nimport json\nprint(json.dumps({"n": 3}))');
    const input = { tenantId: a.id, actionId: proposed.actionId, payloadHash: proposed.payloadHash, executor: { type: "requester" as const }, actor };
    const events = await readEvents(streamExecution(t.db, input));
    const stdout = events.filter((e) => e.type === "stdout").map((e) => ("text" in e ? e.text : "")).join("");
    expect(stdout).toBe('hello\n{"n": 3}\n');
    const result = events.at(-1);
    expect(result).toMatchObject({ type: "result", state: "succeeded", exitCode: 0, truncated: false, replayed: false, isolation: sandbox.isolation });
    expect(result).not.toHaveProperty("stdout");

    const replay = await readEvents(streamExecution(t.db, input));
    expect(replay).toEqual([expect.objectContaining({ type: "result", replayed: true, state: "succeeded", exitCode: 0, stdout: 'hello\n{"n": 3}\n' })]);
    expect(await t.db.execution.count({ where: { actionId: proposed.actionId } })).toBe(1);
  });

  it("aborts the sandbox run when the client disconnects", async (ctx) => {
    needSandbox(ctx);
    const proposed = await approvedCode('import time\nprint("start", flush=True)\ntime.sleep(20)\nprint("never")');
    const stream = streamExecution(t.db, { tenantId: a.id, actionId: proposed.actionId, payloadHash: proposed.payloadHash, executor: { type: "requester" }, actor });
    const reader = stream.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('"start');
    await reader.cancel();
    // Waited for as long as a loaded machine needs; what ended the run is read from its record: the
    // client leaving, not the sandbox's 10 s deadline (which would also end the 20 s sleep).
    await expect.poll(async () => (await t.db.execution.findFirst({ where: { actionId: proposed.actionId } }))?.status, { timeout: 45_000 }).not.toBe("executing");
    const execution = await t.db.execution.findFirstOrThrow({ where: { actionId: proposed.actionId } });
    expect(execution.stdout ?? "").not.toContain("never");
    expect(execution.result).toMatchObject({ timed_out: false });
  }, 90_000);

  it("answers a refused claim with an error line", async () => {
    const proposed = await proposeAction(t.db, { tenantId: a.id, requester: a.requester, tool: "run_python", args: { code: "print(4)", language: "python" } });
    if (proposed.state !== "pending") throw new Error("expected pending");
    const events = await readEvents(streamExecution(t.db, { tenantId: a.id, actionId: proposed.actionId, payloadHash: proposed.payloadHash, executor: { type: "requester" }, actor }));
    expect(events).toEqual([{ type: "error", code: "not_executable.pending", message: expect.any(String) }]);
  });
});
