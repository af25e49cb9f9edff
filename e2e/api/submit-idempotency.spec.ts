import { expect, test } from "@playwright/test";
import { actionCount, expectError, seedAgent } from "@/e2e/api/agent-fixtures";

const email = { tool: "send_email", args: { to: "billing@acme-corp.example", subject: "Reminder", body: "INV-1042 is due." }, reason: "Remind them" };

test.describe("submit with an Idempotency-Key", () => {
  test("a retry answers 200 with the same action (replayed), a different request under the key 409, a malformed key 400", async ({ request }) => {
    const agent = await seedAgent();
    const headers = { ...agent.headers, "Idempotency-Key": "call_abc123" };
    const first = await request.post("/api/v1/actions", { data: email, headers });
    expect(first.status()).toBe(201);
    const created = await first.json();
    expect(created).toMatchObject({ state: "pending", replayed: false, actionState: "pending" });
    expect(first.headers()["idempotency-key"]).toBe("call_abc123");
    expect(first.headers()["idempotent-replayed"]).toBeUndefined();

    // The same call again — its keys in another order, an unused optional argument sent as null
    // (as OpenAI's strict function calling sends it).
    const retry = await request.post("/api/v1/actions", {
      data: { reason: email.reason, tool: "send_email", args: { body: email.args.body, subject: email.args.subject, to: email.args.to, invoice_number: null } },
      headers,
    });
    expect(retry.status()).toBe(200);
    expect(retry.headers()["idempotent-replayed"]).toBe("true");
    expect(retry.headers()["location"]).toBe(`/api/v1/actions/${created.id}`);
    expect(await retry.json()).toEqual({ ...created, replayed: true });

    const other = await request.post("/api/v1/actions", { data: { ...email, args: { ...email.args, body: "Something else." } }, headers });
    const error = await expectError(other, 409, "idempotency_key_reused");
    expect(error.message).toContain("different request");
    expect(await actionCount(agent.tenant.id)).toBe(1);

    for (const bad of ["has space", "tab\there", "x".repeat(201)]) {
      const res = await request.post("/api/v1/actions", { data: email, headers: { ...agent.headers, "Idempotency-Key": bad } });
      await expectError(res, 400, "invalid_idempotency_key");
    }
    expect(await actionCount(agent.tenant.id)).toBe(1);
  });

  test("concurrent duplicate submits over HTTP make one action", async ({ request }) => {
    const agent = await seedAgent();
    const headers = { ...agent.headers, "Idempotency-Key": "parallel-1" };
    const responses = await Promise.all(Array.from({ length: 10 }, () => request.post("/api/v1/actions", { data: email, headers })));
    const bodies = await Promise.all(responses.map((r) => r.json()));
    expect(responses.map((r) => r.status()).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(bodies.map((b: { id: string }) => b.id)).size).toBe(1);
    expect(bodies.filter((b: { replayed: boolean }) => !b.replayed)).toHaveLength(1);
    expect(await actionCount(agent.tenant.id)).toBe(1);
  });

  test("the key belongs to the API key: another key with the same Idempotency-Key gets its own action", async ({ request }) => {
    const [one, two] = [await seedAgent(), await seedAgent()];
    const a = await (await request.post("/api/v1/actions", { data: email, headers: { ...one.headers, "Idempotency-Key": "same" } })).json();
    const b = await request.post("/api/v1/actions", { data: email, headers: { ...two.headers, "Idempotency-Key": "same" } });
    expect(b.status()).toBe(201);
    expect((await b.json()).id).not.toBe(a.id);
  });
});
