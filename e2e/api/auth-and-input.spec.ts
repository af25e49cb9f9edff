import { expect, test } from "@playwright/test";
import { revokeApiKey } from "@/lib/api-keys/revoke-api-key";
import { signInViaApi } from "@/e2e/support/auth";
import { TEST_PASSWORD } from "@/e2e/support/factories";
import { e2eDb } from "@/e2e/support/runtime";
import { actionCount, expectError, seedAgent } from "@/e2e/api/agent-fixtures";

const submitCode = { code: "print(1)", language: "python" };

test.describe("authentication", () => {
  test("a missing key is 401 with a Bearer challenge; malformed and unknown keys are 401", async ({ request }) => {
    const agent = await seedAgent();
    const missing = await request.post("/api/v1/actions", { data: submitCode });
    await expectError(missing, 401, "unauthenticated");
    expect(missing.headers()["www-authenticate"]).toContain("Bearer");

    await expectError(await request.post("/api/v1/actions", { data: submitCode, headers: { Authorization: "Basic abc" } }), 401, "invalid_api_key");
    await expectError(await request.post("/api/v1/actions", { data: submitCode, headers: { Authorization: "Bearer nope" } }), 401, "invalid_api_key");
    const forged = agent.secret.slice(0, -4) + (agent.secret.endsWith("AAAA") ? "BBBB" : "AAAA");
    await expectError(await request.post("/api/v1/actions", { data: submitCode, headers: { Authorization: `Bearer ${forged}` } }), 401, "invalid_api_key");
    await expectError(await request.get("/api/v1/actions/00000000-0000-4000-8000-000000000000"), 401, "unauthenticated");
    expect(await actionCount(agent.tenant.id)).toBe(0);
  });

  test("a revoked key is refused at once, and its refusals are not audited one event per request", async ({ request }) => {
    const agent = await seedAgent();
    expect((await request.post("/api/v1/actions", { data: submitCode, headers: agent.headers })).status()).toBe(201);
    await revokeApiKey(e2eDb(), { tenantId: agent.tenant.id, id: agent.keyId, actor: { type: "user", id: agent.tenant.users.admin.id, label: "admin" } });
    for (let i = 0; i < 3; i++) await expectError(await request.post("/api/v1/actions", { data: submitCode, headers: agent.headers }), 401, "api_key_revoked");
    expect(await actionCount(agent.tenant.id)).toBe(1);
    // Coalesced into one api_key.auth_failed per key and reason per minute, written when the minute
    // ends (lib/api-keys/audit-api-key-failure.test.ts); nothing per request.
    expect(await e2eDb().auditEvent.count({ where: { tenantId: agent.tenant.id, type: { in: ["api.refused", "api_key.auth_failed"] } } })).toBe(0);
  });

  test("a console session cookie is not an API credential", async ({ request }) => {
    const agent = await seedAgent();
    await signInViaApi(request, agent.tenant.users.requester.email, TEST_PASSWORD);
    await expectError(await request.post("/api/v1/actions", { data: submitCode }), 401, "unauthenticated");
    expect(await actionCount(agent.tenant.id)).toBe(0);
  });

  test("the agent is the requester in the audit log", async ({ request }) => {
    const agent = await seedAgent();
    const res = await request.post("/api/v1/actions", { data: { ...submitCode, reason: "count" }, headers: agent.headers });
    const { id } = (await res.json()) as { id: string };
    const event = await e2eDb().auditEvent.findFirstOrThrow({ where: { tenantId: agent.tenant.id, actionId: id, type: "action.proposed" } });
    expect(event).toMatchObject({ actorType: "api_key", actorId: agent.keyId, actorLabel: `api:${agent.name}`, requester: `api:${agent.name}` });
  });
});

test.describe("scope, tenancy and cross-site refusals", () => {
  test("a key without the tool in its scope gets 403 and nothing is created", async ({ request }) => {
    const agent = await seedAgent(["get_invoice"]);
    const code = await expectError(await request.post("/api/v1/actions", { data: submitCode, headers: agent.headers }), 403, "tool_not_allowed");
    expect(code.message).toContain("run_python");
    await expectError(
      await request.post("/api/v1/actions", { data: { tool: "cancel_invoice", args: { invoice_number: "INV-1042", reason: "duplicate" } }, headers: agent.headers }),
      403,
      "tool_not_allowed",
    );
    expect(await actionCount(agent.tenant.id)).toBe(0);
    // Audited as one coalesced api_key.auth_failed at the end of the minute, not one event per request.
    expect(await e2eDb().auditEvent.count({ where: { tenantId: agent.tenant.id, type: "api.refused", status: "tool_not_allowed" } })).toBe(0);
  });

  test("another tenant's action, another key's action and unknown ids are all 404", async ({ request }) => {
    const mine = await seedAgent();
    const theirs = await seedAgent();
    const sibling = await seedAgent(undefined, mine.tenant);
    const { id } = (await (await request.post("/api/v1/actions", { data: submitCode, headers: theirs.headers })).json()) as { id: string };
    for (const agent of [mine, sibling]) {
      await expectError(await request.get(`/api/v1/actions/${id}`, { headers: agent.headers }), 404, "not_found");
      await expectError(await request.get(`/api/v1/actions/${id}/decision?timeout=0`, { headers: agent.headers }), 404, "not_found");
      await expectError(await request.post(`/api/v1/actions/${id}/execute`, { headers: { ...agent.headers, "Idempotency-Key": "k1" } }), 404, "not_found");
      await expectError(await request.post(`/api/v1/actions/${id}/cancel`, { headers: agent.headers }), 404, "not_found");
    }
    await expectError(await request.get("/api/v1/actions/00000000-0000-4000-8000-000000000000", { headers: mine.headers }), 404, "not_found");
    await expectError(await request.get("/api/v1/actions/not-a-uuid", { headers: mine.headers }), 404, "not_found");
    expect((await e2eDb().action.findUniqueOrThrow({ where: { id } })).status).toBe("pending");
  });

  test("state-changing requests from another site are refused before anything happens", async ({ request, baseURL }) => {
    const agent = await seedAgent();
    await expectError(
      await request.post("/api/v1/actions", { data: submitCode, headers: { ...agent.headers, Origin: "https://evil.example" } }),
      403,
      "cross_site_request",
    );
    await expectError(
      await request.post("/api/v1/actions", { data: submitCode, headers: { ...agent.headers, "Sec-Fetch-Site": "cross-site" } }),
      403,
      "cross_site_request",
    );
    expect(await actionCount(agent.tenant.id)).toBe(0);
    // The app's own origin is fine.
    const own = await request.post("/api/v1/actions", { data: submitCode, headers: { ...agent.headers, Origin: baseURL!, "Sec-Fetch-Site": "same-origin" } });
    expect(own.status()).toBe(201);
  });
});

test.describe("bad input is a 4xx with a stable code and changes nothing", () => {
  const cases: Array<{ name: string; body: string; status: number; code: string; contentType?: string; says?: string }> = [
    { name: "malformed JSON", body: '{"code": "print(1)", "language": "python"', status: 400, code: "invalid_payload.syntax_error" },
    { name: "duplicate keys", body: '{"code": "print(1)", "code": "import os", "language": "python"}', status: 400, code: "invalid_payload.duplicate_key" },
    { name: "unknown fields", body: '{"code": "print(1)", "language": "python", "sudo": true}', status: 400, code: "invalid_input" },
    { name: "unknown fields in tool args", body: '{"tool": "get_invoice", "args": {"invoice_number": "INV-1042", "all": true}}', status: 400, code: "invalid_args" },
    { name: "a number beyond 2^53", body: '{"tool": "refund_invoice", "args": {"invoice_number": "INV-1044", "amount_minor": 9007199254740993, "reason": "x"}}', status: 400, code: "invalid_payload.unsafe_integer" },
    { name: "a lone surrogate", body: '{"code": "print(\\"\\ud800\\")", "language": "python"}', status: 400, code: "invalid_payload.lone_surrogate" },
    { name: "__proto__", body: '{"tool": "get_invoice", "args": {"__proto__": {"x": 1}}}', status: 400, code: "invalid_payload.forbidden_key" },
    { name: "a huge body", body: JSON.stringify({ code: `print("${"x".repeat(300_000)}")`, language: "python" }), status: 413, code: "invalid_payload.payload_too_large" },
    { name: "deep nesting", body: `{"tool": "get_invoice", "args": ${"[".repeat(100)}${"]".repeat(100)}}`, status: 400, code: "invalid_payload.too_deep" },
    { name: "an empty body", body: "", status: 400, code: "invalid_input" },
    { name: "the wrong language", body: '{"code": "ls", "language": "bash"}', status: 400, code: "invalid_input", says: 'language must be "python"' },
    { name: "code without its language", body: '{"code": "print(1)"}', status: 400, code: "invalid_input", says: 'language is missing: send "language": "python"' },
    { name: "a tool call without its args", body: '{"tool": "get_invoice"}', status: 400, code: "invalid_input", says: "at args" },
    { name: "an unknown tool", body: '{"tool": "drop_tables", "args": {}}', status: 403, code: "tool_not_allowed" },
    { name: "not JSON", body: "code=print(1)", status: 415, code: "unsupported_media_type", contentType: "application/x-www-form-urlencoded" },
  ];

  test("every malformed request is refused and no action exists afterwards", async ({ request }) => {
    const agent = await seedAgent();
    for (const c of cases) {
      const res = await request.post("/api/v1/actions", {
        // A Buffer is sent byte for byte (a string would be JSON-encoded again).
        data: Buffer.from(c.body),
        headers: { ...agent.headers, "Content-Type": c.contentType ?? "application/json" },
      });
      await test.step(c.name, async () => {
        const error = await expectError(res, c.status, c.code);
        // Which field is wrong and what it may be, not zod's bare "Invalid input".
        if (c.says) expect(error.message).toContain(c.says);
      });
    }
    expect(await actionCount(agent.tenant.id)).toBe(0);
  });

  test("a bounded long-poll refuses out-of-range and unknown query parameters", async ({ request }) => {
    const agent = await seedAgent();
    const { id } = (await (await request.post("/api/v1/actions", { data: submitCode, headers: agent.headers })).json()) as { id: string };
    await expectError(await request.get(`/api/v1/actions/${id}/decision?timeout=999`, { headers: agent.headers }), 400, "invalid_query");
    await expectError(await request.get(`/api/v1/actions/${id}/decision?timeout=abc`, { headers: agent.headers }), 400, "invalid_query");
    await expectError(await request.get(`/api/v1/actions/${id}/decision?wait=5`, { headers: agent.headers }), 400, "invalid_query");
  });
});

test.describe("rate limit", () => {
  test("a key over its window gets 429 with Retry-After; other keys are unaffected", async ({ request }) => {
    const agent = await seedAgent();
    const other = await seedAgent();
    const db = e2eDb();
    // Fill this key's current window (aligned to the database clock, as the server computes it).
    const [{ remaining }] = await db.$queryRaw<Array<{ remaining: number }>>`
      SELECT (60 - extract(epoch FROM now())::numeric % 60)::float AS remaining`;
    if (remaining < 5) await new Promise((r) => setTimeout(r, remaining * 1000 + 200));
    await db.$executeRaw`
      INSERT INTO "RateLimitBucket" (key, "windowStart", count)
      VALUES (${`api-key:${agent.keyId}`}, to_timestamp(floor(extract(epoch FROM now()) / 60) * 60), 10000)`;
    const limited = await request.get("/api/v1/actions/00000000-0000-4000-8000-000000000000", { headers: agent.headers });
    const error = await expectError(limited, 429, "rate_limited");
    const retryAfter = Number(limited.headers()["retry-after"]);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(error.message).toContain("retry");
    await expectError(await request.post("/api/v1/actions", { data: submitCode, headers: agent.headers }), 429, "rate_limited");
    expect(await actionCount(agent.tenant.id)).toBe(0);
    await expectError(await request.get("/api/v1/actions/00000000-0000-4000-8000-000000000000", { headers: other.headers }), 404, "not_found");
  });
});
