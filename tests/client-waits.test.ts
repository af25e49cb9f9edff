import { randomBytes } from "node:crypto";
import { Agent, RunToolApprovalItem } from "@openai/agents";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Countersign, CountersignError, RateLimitedError } from "@/clients/typescript/src/countersign";
import { countersignForAgents, type ResolvableRunState } from "@/clients/typescript/src/openai-agents";
import { ClientProcess } from "@/e2e/clients/client-process";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { detectSandbox } from "@/lib/sandbox/select-runner";
import { startAgentApiServer, type AgentApiServer, type RecordedRequest } from "@/tests/agent-api-server";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";

// The clients' decision waits against the agent API's real route handlers (over HTTP, see
// agent-api-server.ts): however a wait ends, it sends at most one request a second, and a wait
// that runs out ends as documented (`not_decided`, NotDecidedError, the AutoGen executor's
// withdrawn block), never in a rate-limit error of its own making.

const t = setUpTestDatabase({ appClient: true });
const a = setUpTestTenant(t);
let server: AgentApiServer;
const savedLimit = process.env.COUNTERSIGN_API_RATE_LIMIT;
// Waits that run out at a fraction of a second (as the default 15 minutes does after 36 polls of 25 s).
const TIMEOUT_MS = 2_500;
const SMALL_REFUND = { invoice_number: "INV-1043", amount_minor: 10_000, reason: "Customer returned the goods" };
// The AutoGen executor submits code, which waits for review only where a sandbox could run it.
const sandbox = await detectSandbox({ fresh: true });

beforeAll(async () => {
  // A window small enough that a wait polling in a loop runs into it within the test.
  process.env.COUNTERSIGN_API_RATE_LIMIT = "30";
  server = await startAgentApiServer();
});
afterAll(async () => {
  if (savedLimit === undefined) delete process.env.COUNTERSIGN_API_RATE_LIMIT;
  else process.env.COUNTERSIGN_API_RATE_LIMIT = savedLimit;
  await server?.close();
});

async function keyFor(allowedTools: string[]) {
  const { apiKey, secret } = await createApiKey(t.db, { tenantId: a.id, name: `waits-${randomBytes(3).toString("hex")}`, allowedTools, createdById: a.users.admin.id });
  return { id: apiKey.id, secret };
}

/**
 * Another agent on the same key sends enough requests to use up its rate-limit window. The window is
 * fixed to the clock (a minute from :00), so a window used up in its last seconds would open again
 * inside the wait under test: such a moment is waited out first.
 */
async function useUpWindow(secret: string, actionId: string) {
  const limit = Number(process.env.COUNTERSIGN_API_RATE_LIMIT);
  const windowMs = Number(process.env.COUNTERSIGN_API_RATE_WINDOW_SECONDS ?? 60) * 1_000;
  const leftMs = windowMs - (Date.now() % windowMs);
  if (leftMs < 15_000) await new Promise((resolve) => setTimeout(resolve, leftMs + 500));
  // One over the limit: even a window that opened after the submit is used up.
  const statuses = await Promise.all(Array.from({ length: limit + 1 }, () =>
    fetch(`${server.url}/api/v1/actions/${actionId}`, { headers: { Authorization: `Bearer ${secret}` } }).then((r) => r.status)));
  expect(statuses).toContain(429);
}

const decisionPolls = (actionId: string) => server.requests.filter((r) => r.path === `/api/v1/actions/${actionId}/decision`);

/** Polls that keep to one a second: each starts at least a second after the one before. */
function expectAtMostOnePerSecond(polls: RecordedRequest[]) {
  expect(polls.length).toBeGreaterThan(0);
  expect(polls.map((p) => p.search)).not.toContain("?timeout=0");
  expect(polls.every((p) => p.status === 200), JSON.stringify(polls)).toBe(true);
  for (let i = 1; i < polls.length; i++) expect(polls[i].startedAt - polls[i - 1].startedAt, JSON.stringify(polls)).toBeGreaterThanOrEqual(990);
}

describe("the TypeScript client", () => {
  it("waitForDecision ends in not_decided after its timeout, one poll a second at most", async () => {
    const cs = new Countersign({ baseUrl: server.url, apiKey: (await keyFor(["refund_invoice"])).secret });
    const submitted = await cs.submitTool("refund_invoice", SMALL_REFUND);
    expect(submitted.state).toBe("pending");
    const started = Date.now();
    const ended = await cs.waitForDecision(submitted.id, { timeoutMs: TIMEOUT_MS }).catch((error: unknown) => error);
    expect(ended).toBeInstanceOf(CountersignError);
    expect(ended).not.toBeInstanceOf(RateLimitedError);
    expect((ended as CountersignError).code).toBe("not_decided");
    expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS);
    expectAtMostOnePerSecond(decisionPolls(submitted.id));
  });

  it("a poll refused by the key's rate limit (other agents used up the window) waits within the deadline and still ends in not_decided", async () => {
    const key = await keyFor(["refund_invoice"]);
    const cs = new Countersign({ baseUrl: server.url, apiKey: key.secret });
    const submitted = await cs.submitTool("refund_invoice", { ...SMALL_REFUND, amount_minor: 10_200 });
    await useUpWindow(key.secret, submitted.id);
    const ended = await cs.waitForDecision(submitted.id, { timeoutMs: TIMEOUT_MS }).catch((error: unknown) => error);
    expect(ended).not.toBeInstanceOf(RateLimitedError);
    expect((ended as CountersignError).code).toBe("not_decided");
    expect(decisionPolls(submitted.id).map((p) => p.status)).toEqual([429]);
  });

  it("two OpenAI Agents runs sharing a key, waiting in parallel, both end in not_decided with their state resumable", async () => {
    const { id: keyId, secret } = await keyFor(["refund_invoice"]);
    const agent = new Agent({ name: "Billing" });
    const runs = await Promise.all([0, 1].map(async (n) => {
      const gate = countersignForAgents(new Countersign({ baseUrl: server.url, apiKey: secret }), { decisionTimeoutMs: TIMEOUT_MS });
      const callId = `call-${n}-${randomBytes(4).toString("hex")}`;
      const args = { ...SMALL_REFUND, amount_minor: 10_000 + n };
      expect(await gate.tool("refund_invoice").needsApproval(undefined, args, callId)).toBe(true);
      const item = new RunToolApprovalItem({ type: "function_call", callId, name: "refund_invoice", arguments: JSON.stringify(args), status: "completed" }, agent);
      const answered: string[] = [];
      const state: ResolvableRunState = { getInterruptions: () => [item], approve: () => void answered.push("approve"), reject: () => void answered.push("reject") };
      return { gate, state, answered };
    }));
    const ended = await Promise.all(runs.map(({ gate, state }) => gate.resolveInterruptions(state).catch((error: unknown) => error)));
    for (const [n, error] of ended.entries()) {
      expect(error, `run ${n}`).toBeInstanceOf(CountersignError);
      expect(error, `run ${n}`).not.toBeInstanceOf(RateLimitedError);
      expect((error as CountersignError).code).toBe("not_decided");
      // Neither approved nor rejected: the run can resume once a reviewer decides.
      expect(runs[n].answered).toEqual([]);
    }
    const actions = await t.db.action.findMany({ where: { tenantId: a.id, requesterApiKeyId: keyId }, select: { id: true, status: true } });
    expect(actions.map((action) => action.status)).toEqual(["pending", "pending"]);
    for (const action of actions) expectAtMostOnePerSecond(decisionPolls(action.id));
  });
});

describe("the Python client", () => {
  const run = (mode: "wait" | "gated", env: Record<string, string>) =>
    new ClientProcess("python3", ["tests/python_wait_driver.py", mode], { CS_URL: server.url, CS_TIMEOUT: String(TIMEOUT_MS / 1000), ...env });

  it("wait_for_decision raises NotDecidedError after its timeout, one poll a second at most", async () => {
    const client = run("wait", { CS_KEY: (await keyFor(["refund_invoice"])).secret, CS_TOOL: "refund_invoice", CS_ARGS: JSON.stringify({ ...SMALL_REFUND, amount_minor: 10_100 }) });
    try {
      const submitted = await client.next("submitted");
      expect(submitted.state).toBe("pending");
      expect(await client.next("ended", 30_000)).toEqual({ event: "ended", type: "NotDecidedError", code: "not_decided" });
      expect((await client.exit()).code).toBe(0);
      expectAtMostOnePerSecond(decisionPolls(String(submitted.id)));
    } finally {
      client.kill();
    }
  });

  it("a poll refused by the key's rate limit waits within the deadline and still raises NotDecidedError", async () => {
    const key = await keyFor(["refund_invoice"]);
    const submitted = await new Countersign({ baseUrl: server.url, apiKey: key.secret }).submitTool("refund_invoice", { ...SMALL_REFUND, amount_minor: 10_300 });
    await useUpWindow(key.secret, submitted.id);
    const client = run("wait", { CS_KEY: key.secret, CS_ACTION: submitted.id });
    try {
      expect(await client.next("ended", 30_000)).toEqual({ event: "ended", type: "NotDecidedError", code: "not_decided" });
      expect(decisionPolls(submitted.id).map((p) => p.status)).toEqual([429]);
    } finally {
      client.kill();
    }
  });

  it.skipIf(!sandbox.available)(
    "two AutoGen executors sharing a key: with no decision in time each withdraws its block and returns a failed result, never raises",
    async () => {
      const { secret } = await keyFor(["run_python"]);
      const clients = [0, 1].map((n) => run("gated", { CS_KEY: secret, CS_CODE: `print(${n})`, CS_TIMEOUT: "1.95" }));
      try {
        const submitted = await Promise.all(clients.map((client) => client.next("submitted")));
        for (const client of clients) {
          expect(await client.next("executed", 30_000)).toEqual({
            event: "executed", exitCode: 1, output: "No reviewer decided on this code block within 2 s; it was withdrawn and not run.\n",
          });
          expect((await client.exit()).code).toBe(0);
        }
        for (const { id } of submitted) {
          expect((await t.db.action.findUniqueOrThrow({ where: { id: String(id) } })).status).toBe("cancelled");
          expectAtMostOnePerSecond(decisionPolls(String(id)));
        }
      } finally {
        for (const client of clients) client.kill();
      }
    },
  );
});
