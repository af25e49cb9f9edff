import { expect, test } from "@playwright/test";
import { e2eDb } from "@/e2e/support/runtime";
import { CODE, decide, expectError, ndjson, seedAgent } from "@/e2e/api/agent-fixtures";

type Pending = { state: "pending"; id: string; payloadHash: string; revision: number; expiresAt: string; riskLevel: string; quorum: number };

test.describe("submit: allowed, denied, pending", () => {
  test("a read the policy allows runs at once and the result comes back (200)", async ({ request }) => {
    const agent = await seedAgent();
    const res = await request.post("/api/v1/actions", { data: { tool: "get_invoice", args: { invoice_number: "INV-1042" } }, headers: agent.headers });
    expect(res.status()).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ state: "allowed", id: expect.any(String), execution: { state: "succeeded", result: { invoice_number: "INV-1042", amount_due_minor: 2_500_000 } } });
    expect(res.headers()["location"]).toBe(`/api/v1/actions/${body.id}`);
  });

  test("a call the policy denies answers 200 with state denied and the reason", async ({ request }) => {
    const agent = await seedAgent();
    const res = await request.post("/api/v1/actions", {
      data: { tool: "refund_invoice", args: { invoice_number: "INV-1044", amount_minor: 6_000_000, reason: "Goodwill" } },
      headers: agent.headers,
    });
    expect(res.status()).toBe(200);
    expect(await res.json()).toMatchObject({ state: "denied", reason: expect.stringContaining("50,000.00"), ruleId: "refund-over-limit" });
  });

  test("code the pre-scan blocks answers 200 with state denied and the scan's reason, in both body forms", async ({ request }) => {
    const agent = await seedAgent();
    const blocked = [
      { code: "import os\nprint(os.getcwd())\n", says: 'imports banned module "os"' },
      { code: "exec('print(1)')\n", says: "uses exec()" },
      { code: "__import__('os').system('id')\n", says: "uses __import__()" },
    ];
    for (const { code, says } of blocked) {
      for (const data of [{ code, language: "python" }, { tool: "run_python", args: { code } }]) {
        const res = await request.post("/api/v1/actions", { data, headers: agent.headers });
        expect(res.status(), await res.text()).toBe(200);
        const body = await res.json();
        expect(body).toMatchObject({ state: "denied", id: expect.any(String), reason: expect.stringContaining("blocked before review"), ruleId: null, riskLevel: "critical" });
        expect(body.reason).toContain(says);
        const view = await (await request.get(`/api/v1/actions/${body.id}`, { headers: agent.headers })).json();
        expect(view).toMatchObject({ state: "denied", kind: "code", code, statusReason: body.reason });
      }
    }
  });

  test("risky calls and code wait for a reviewer (201) with id, expiry, revision and hash", async ({ request }) => {
    const agent = await seedAgent();
    const res = await request.post("/api/v1/actions", { data: { code: CODE, language: "python", reason: "List stale buckets" }, headers: agent.headers });
    expect(res.status()).toBe(201);
    const body = (await res.json()) as Pending;
    expect(body).toMatchObject({ state: "pending", revision: 1, payloadHash: expect.stringMatching(/^[0-9a-f]{64}$/), quorum: 1 });
    expect(new Date(body.expiresAt).getTime()).toBeGreaterThan(Date.now());
    const view = await (await request.get(`/api/v1/actions/${body.id}`, { headers: agent.headers })).json();
    expect(view).toMatchObject({
      id: body.id, state: "pending", kind: "code", tool: "run_python", code: CODE, language: "python", reason: "List stale buckets",
      requester: `api:${agent.name}`, revision: 1, payloadHash: body.payloadHash, decisions: [], execution: null, approvals: 0,
    });
  });
});

test.describe("decision, execution, cancellation", () => {
  test("long-poll times out while pending, then returns as soon as a reviewer decides", async ({ request }) => {
    const agent = await seedAgent();
    const pending = (await (await request.post("/api/v1/actions", { data: { code: CODE, language: "python" }, headers: agent.headers })).json()) as Pending;
    let started = Date.now();
    const still = await (await request.get(`/api/v1/actions/${pending.id}/decision?timeout=1`, { headers: agent.headers })).json();
    expect(still).toMatchObject({ state: "pending", decided: false });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);

    started = Date.now();
    // Its limit is the longest allowed (60 s) and the bound half of it: far from how long a loaded
    // machine takes to answer once the decision is in, far from the limit it would wait out.
    const waiting = request.get(`/api/v1/actions/${pending.id}/decision?timeout=60`, { headers: agent.headers, timeout: 60_000 });
    setTimeout(() => void decide(agent, pending.id, pending.payloadHash, "approve", "Looks read-only"), 700);
    const decided = await (await waiting).json();
    expect(decided).toMatchObject({ state: "approved", decided: true, payloadHash: pending.payloadHash, revision: 1 });
    expect(Date.now() - started).toBeLessThan(30_000);

    const view = await (await request.get(`/api/v1/actions/${pending.id}`, { headers: agent.headers })).json();
    expect(view.decisions).toEqual([expect.objectContaining({ verdict: "approve", note: "Looks read-only", revision: 1, void: false, counts: true })]);
  });

  test("a rejection reaches the agent with the reviewer's reason, and cannot be executed", async ({ request }) => {
    const agent = await seedAgent();
    const pending = (await (await request.post("/api/v1/actions", { data: { code: CODE, language: "python" }, headers: agent.headers })).json()) as Pending;
    await decide(agent, pending.id, pending.payloadHash, "reject", "Do not touch the buckets today");
    const decided = await (await request.get(`/api/v1/actions/${pending.id}/decision?timeout=5`, { headers: agent.headers })).json();
    expect(decided).toMatchObject({ state: "rejected", decided: true, reason: "Do not touch the buckets today" });
    await expectError(await request.post(`/api/v1/actions/${pending.id}/execute`, { headers: { ...agent.headers, "Idempotency-Key": "r1" } }), 409, "not_executable.rejected");
  });

  test("execute needs an Idempotency-Key and an approval", async ({ request }) => {
    const agent = await seedAgent();
    const pending = (await (await request.post("/api/v1/actions", { data: { code: CODE, language: "python" }, headers: agent.headers })).json()) as Pending;
    await expectError(await request.post(`/api/v1/actions/${pending.id}/execute`, { headers: agent.headers }), 400, "idempotency_key_required");
    await expectError(await request.post(`/api/v1/actions/${pending.id}/execute`, { headers: { ...agent.headers, "Idempotency-Key": "a b" } }), 400, "idempotency_key_required");
    await expectError(await request.post(`/api/v1/actions/${pending.id}/execute`, { headers: { ...agent.headers, "Idempotency-Key": "e1" } }), 409, "not_executable.pending");
    expect(await e2eDb().execution.count({ where: { actionId: pending.id } })).toBe(0);
  });

  test("an approved tool call executes once: a retry and a second key both get the recorded result", async ({ request }) => {
    const agent = await seedAgent();
    const pending = (await (
      await request.post("/api/v1/actions", { data: { tool: "cancel_invoice", args: { invoice_number: "INV-1045", reason: "Duplicate invoice" } }, headers: agent.headers })
    ).json()) as Pending;
    expect(pending.state).toBe("pending");
    await decide(agent, pending.id, pending.payloadHash, "approve");

    const headers = { ...agent.headers, "Idempotency-Key": "cancel-1045-a" };
    const [first, retry] = await Promise.all([
      request.post(`/api/v1/actions/${pending.id}/execute`, { headers, data: { payloadHash: pending.payloadHash } }),
      request.post(`/api/v1/actions/${pending.id}/execute`, { headers, data: { payloadHash: pending.payloadHash } }),
    ]);
    const bodies = [await first.json(), await retry.json()];
    expect([first.status(), retry.status()]).toEqual([200, 200]);
    const live = bodies.find((b) => b.replayed === false);
    const replay = bodies.find((b) => b.replayed === true);
    expect(live).toMatchObject({ state: "succeeded", idempotencyKey: "cancel-1045-a", isolation: "in-process" });
    expect(replay?.executionId).toBe(live?.executionId);
    const again = await (await request.post(`/api/v1/actions/${pending.id}/execute`, { headers: { ...agent.headers, "Idempotency-Key": "other" } })).json();
    expect(again).toMatchObject({ replayed: true, executionId: live.executionId, state: "succeeded" });
    expect(first.headers()["idempotency-key"]).toBe("cancel-1045-a");

    const db = e2eDb();
    expect(await db.execution.count({ where: { actionId: pending.id } })).toBe(1);
    expect((await db.invoice.findFirstOrThrow({ where: { tenantId: agent.tenant.id, number: "INV-1045" } })).status).toBe("cancelled");
    const view = await (await request.get(`/api/v1/actions/${pending.id}`, { headers: agent.headers })).json();
    expect(view).toMatchObject({ state: "succeeded", execution: { id: live.executionId, state: "succeeded", isolation: "in-process" } });
  });

  test("a hash the agent holds that is not the approved one is refused", async ({ request }) => {
    const agent = await seedAgent();
    const pending = (await (
      await request.post("/api/v1/actions", { data: { tool: "cancel_invoice", args: { invoice_number: "INV-1046", reason: "Duplicate invoice" } }, headers: agent.headers })
    ).json()) as Pending;
    await decide(agent, pending.id, pending.payloadHash, "approve");
    await expectError(
      await request.post(`/api/v1/actions/${pending.id}/execute`, { headers: { ...agent.headers, "Idempotency-Key": "h1" }, data: { payloadHash: "0".repeat(64) } }),
      409,
      "hash_mismatch",
    );
    expect((await e2eDb().invoice.findFirstOrThrow({ where: { tenantId: agent.tenant.id, number: "INV-1046" } })).status).toBe("open");
  });

  test("an approval past its expiry is reported as expired, never executed", async ({ request }) => {
    const agent = await seedAgent();
    const pending = (await (
      await request.post("/api/v1/actions", { data: { tool: "cancel_invoice", args: { invoice_number: "INV-1047", reason: "Duplicate invoice" } }, headers: agent.headers })
    ).json()) as Pending;
    await decide(agent, pending.id, pending.payloadHash, "approve");
    await e2eDb().action.update({ where: { id: pending.id }, data: { expiresAt: new Date(Date.now() - 1000) } });

    expect(await (await request.get(`/api/v1/actions/${pending.id}`, { headers: agent.headers })).json()).toMatchObject({ state: "expired" });
    expect(await (await request.get(`/api/v1/actions/${pending.id}/decision?timeout=0`, { headers: agent.headers })).json()).toMatchObject({ state: "expired", decided: true });
    await expectError(await request.post(`/api/v1/actions/${pending.id}/execute`, { headers: { ...agent.headers, "Idempotency-Key": "x1" } }), 409, "expired");
    await expectError(await request.post(`/api/v1/actions/${pending.id}/cancel`, { headers: agent.headers }), 409, "not_cancellable");
    expect((await e2eDb().invoice.findFirstOrThrow({ where: { tenantId: agent.tenant.id, number: "INV-1047" } })).status).toBe("open");
    expect(await e2eDb().execution.count({ where: { actionId: pending.id } })).toBe(0);
  });

  test("the agent cancels its pending action once", async ({ request }) => {
    const agent = await seedAgent();
    const pending = (await (await request.post("/api/v1/actions", { data: { code: CODE, language: "python" }, headers: agent.headers })).json()) as Pending;
    const res = await request.post(`/api/v1/actions/${pending.id}/cancel`, { headers: agent.headers, data: { reason: "No longer needed" } });
    expect(res.status()).toBe(200);
    expect(await res.json()).toEqual({ id: pending.id, state: "cancelled" });
    await expectError(await request.post(`/api/v1/actions/${pending.id}/cancel`, { headers: agent.headers }), 409, "not_cancellable");
    await expectError(await request.post(`/api/v1/actions/${pending.id}/cancel`, { headers: agent.headers, data: { why: "x" } }), 400, "invalid_input");
    expect(await (await request.get(`/api/v1/actions/${pending.id}/decision?timeout=0`, { headers: agent.headers })).json()).toMatchObject({
      state: "cancelled", reason: "No longer needed",
    });
  });

  test("approved code streams its sandbox output as NDJSON, once; a second call replays the record", async ({ request }) => {
    const agent = await seedAgent();
    const pending = (await (await request.post("/api/v1/actions", { data: { code: CODE, language: "python" }, headers: agent.headers })).json()) as Pending;
    await decide(agent, pending.id, pending.payloadHash, "approve");
    const res = await request.post(`/api/v1/actions/${pending.id}/execute`, { headers: { ...agent.headers, "Idempotency-Key": "run-1" } });
    expect(res.status()).toBe(200);
    expect(res.headers()["content-type"]).toContain("application/x-ndjson");
    const events = ndjson(await res.text()).filter((e) => e.type !== "heartbeat");
    const stdout = events.filter((e) => e.type === "stdout").map((e) => e.text).join("");
    expect(stdout).toBe('stale: logs-2019\n{"checked": 2}\n');
    expect(events.at(-1)).toMatchObject({ type: "result", state: "succeeded", exitCode: 0, truncated: false, replayed: false, isolation: expect.stringMatching(/^(container|namespace)$/) });

    const again = ndjson(await (await request.post(`/api/v1/actions/${pending.id}/execute`, { headers: { ...agent.headers, "Idempotency-Key": "run-1" } })).text());
    expect(again).toEqual([expect.objectContaining({ type: "result", replayed: true, state: "succeeded", exitCode: 0, stdout })]);
    expect(await e2eDb().execution.count({ where: { actionId: pending.id } })).toBe(1);
    const view = await (await request.get(`/api/v1/actions/${pending.id}`, { headers: agent.headers })).json();
    expect(view.execution).toMatchObject({ state: "succeeded", exitCode: 0, result: { stdout } });
  });
});
