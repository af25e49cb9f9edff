import { expect, test } from "@playwright/test";
import { proposeAction } from "@/lib/approvals/propose-action";
import { signInViaApi } from "@/e2e/support/auth";
import { TEST_PASSWORD } from "@/e2e/support/factories";
import { e2eDb } from "@/e2e/support/runtime";
import { CODE, decide, expectError, ndjson, seedAgent, type Agent } from "@/e2e/api/agent-fixtures";

async function approvedCode(agent: Agent, code = CODE) {
  const proposed = await proposeAction(e2eDb(), { tenantId: agent.tenant.id, requester: agent.tenant.requester, tool: "run_python", args: { code, language: "python" } });
  if (proposed.state !== "pending") throw new Error(`expected pending, got ${proposed.state}`);
  await decide(agent, proposed.actionId, proposed.payloadHash, "approve");
  return proposed;
}

test.describe("POST /api/actions/{id}/execute (console session)", () => {
  test("a reviewer runs approved code and watches the output stream; a second run replays", async ({ request, baseURL }) => {
    const agent = await seedAgent();
    const action = await approvedCode(agent);
    const headers = { Origin: baseURL! };
    await signInViaApi(request, agent.tenant.users.reviewer2.email, TEST_PASSWORD);
    const res = await request.post(`/api/actions/${action.actionId}/execute`, { data: { payloadHash: action.payloadHash }, headers });
    expect(res.status(), await res.text()).toBe(200);
    const events = ndjson(await res.text()).filter((e) => e.type !== "heartbeat");
    expect(events.filter((e) => e.type === "stdout").map((e) => e.text).join("")).toContain("stale: logs-2019");
    expect(events.at(-1)).toMatchObject({ type: "result", state: "succeeded", exitCode: 0, replayed: false });

    const replay = ndjson(await (await request.post(`/api/actions/${action.actionId}/execute`, { data: { payloadHash: action.payloadHash }, headers })).text());
    expect(replay).toEqual([expect.objectContaining({ type: "result", replayed: true, stdout: expect.stringContaining("stale: logs-2019") })]);
    expect(await e2eDb().execution.count({ where: { actionId: action.actionId } })).toBe(1);
    const started = await e2eDb().auditEvent.findFirstOrThrow({ where: { actionId: action.actionId, type: "execution.started" } });
    expect(started.actorId).toBe(agent.tenant.users.reviewer2.id);
  });

  test("refusals: signed out 401, wrong role 403, other tenant 404, cross-site or no origin 403, stale hash 409, not approved 409", async ({ request, playwright, baseURL }) => {
    const agent = await seedAgent();
    const other = await seedAgent();
    const action = await approvedCode(agent);
    const headers = { Origin: baseURL! };

    await expectError(await request.post(`/api/actions/${action.actionId}/execute`, { data: { payloadHash: action.payloadHash }, headers }), 401, "unauthenticated");

    const requester = await playwright.request.newContext({ baseURL });
    await signInViaApi(requester, agent.tenant.users.requester.email, TEST_PASSWORD);
    await expectError(await requester.post(`/api/actions/${action.actionId}/execute`, { data: { payloadHash: action.payloadHash }, headers }), 403, "forbidden");
    await requester.dispose();
    // The wrong role's attempt is in the log.
    expect(await e2eDb().auditEvent.count({
      where: { tenantId: agent.tenant.id, type: "console.refused", actorId: agent.tenant.users.requester.id, status: "forbidden" },
    })).toBe(1);

    const outsider = await playwright.request.newContext({ baseURL });
    await signInViaApi(outsider, other.tenant.users.reviewer.email, TEST_PASSWORD);
    await expectError(await outsider.post(`/api/actions/${action.actionId}/execute`, { data: { payloadHash: action.payloadHash }, headers }), 404, "not_found");
    await outsider.dispose();

    await signInViaApi(request, agent.tenant.users.reviewer.email, TEST_PASSWORD);
    await expectError(
      await request.post(`/api/actions/${action.actionId}/execute`, { data: { payloadHash: action.payloadHash }, headers: { Origin: "https://evil.example" } }),
      403,
      "cross_site_request",
    );
    await expectError(
      await request.post(`/api/actions/${action.actionId}/execute`, { data: { payloadHash: action.payloadHash }, headers: { ...headers, "Sec-Fetch-Site": "cross-site" } }),
      403,
      "cross_site_request",
    );
    // A forwarded host is not an origin of ours.
    await expectError(
      await request.post(`/api/actions/${action.actionId}/execute`, {
        data: { payloadHash: action.payloadHash }, headers: { Origin: "https://evil.example", "X-Forwarded-Host": "evil.example", "X-Forwarded-Proto": "https" },
      }),
      403,
      "cross_site_request",
    );
    // A session-cookie request that does not say where it comes from is refused.
    await expectError(await request.post(`/api/actions/${action.actionId}/execute`, { data: { payloadHash: action.payloadHash } }), 403, "origin_required");
    await expectError(await request.post(`/api/actions/${action.actionId}/execute`, { data: { payloadHash: "f".repeat(64) }, headers }), 409, "hash_mismatch");
    await expectError(await request.post(`/api/actions/${action.actionId}/execute`, { data: { payloadHash: action.payloadHash, extra: 1 }, headers }), 400, "invalid_input");
    await expectError(
      await request.post(`/api/actions/${action.actionId}/execute`, {
        data: `payloadHash=${action.payloadHash}`, headers: { ...headers, "Content-Type": "application/x-www-form-urlencoded" },
      }),
      415,
      "unsupported_media_type",
    );
    const pending = await proposeAction(e2eDb(), { tenantId: agent.tenant.id, requester: agent.tenant.requester, tool: "run_python", args: { code: "print(5)", language: "python" } });
    if (pending.state !== "pending") throw new Error("expected pending");
    await expectError(await request.post(`/api/actions/${pending.actionId}/execute`, { data: { payloadHash: pending.payloadHash }, headers }), 409, "not_executable.pending");
    expect(await e2eDb().execution.count({ where: { actionId: { in: [action.actionId, pending.actionId] } } })).toBe(0);
  });
});
