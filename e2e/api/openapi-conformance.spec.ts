import { expect, test } from "@playwright/test";
import { CODE, decide, seedAgent } from "@/e2e/api/agent-fixtures";
import { OpenApiValidator } from "@/e2e/api/openapi-validator";

/**
 * What the server really answers fits what /api/v1/openapi.json says it answers — every
 * operation, success and refusal, JSON and the NDJSON stream line by line — checked with a JSON
 * Schema 2020-12 validator against the served document, not against the zod schemas it came from.
 */
const SUBMIT = { path: "/api/v1/actions", method: "post" } as const;
const ACTION = { path: "/api/v1/actions/{id}", method: "get" } as const;
const DECISION = { path: "/api/v1/actions/{id}/decision", method: "get" } as const;
const EXECUTE = { path: "/api/v1/actions/{id}/execute", method: "post" } as const;
const CANCEL = { path: "/api/v1/actions/{id}/cancel", method: "post" } as const;

test("real responses of every agent operation validate against the served OpenAPI document", async ({ request }) => {
  const doc = await OpenApiValidator.load(request);
  const agent = await seedAgent();
  const post = (url: string, data: unknown, headers: Record<string, string> = {}) => request.post(url, { data, headers: { ...agent.headers, ...headers } });
  const get = (url: string) => request.get(url, { headers: agent.headers });

  // Submit: allowed, denied (policy and pre-scan), pending, and a replay under an Idempotency-Key.
  const allowed = await doc.checked(await post("/api/v1/actions", { tool: "get_invoice", args: { invoice_number: "INV-1042" } }), SUBMIT);
  expect(allowed.state).toBe("allowed");
  const denied = await doc.checked(await post("/api/v1/actions", { tool: "refund_invoice", args: { invoice_number: "INV-1044", amount_minor: 6_000_000, reason: "Goodwill" } }), SUBMIT);
  expect(denied.state).toBe("denied");
  expect((await doc.checked(await post("/api/v1/actions", { code: "import os\n", language: "python" }), SUBMIT)).state).toBe("denied");
  const email = { tool: "send_email", args: { to: "billing@acme-corp.example", subject: "Reminder", body: "INV-1042 is due.", invoice_number: null } };
  const pending = await doc.checked(await post("/api/v1/actions", email, { "Idempotency-Key": "conformance-1" }), SUBMIT);
  expect(pending.state).toBe("pending");
  const replay = await doc.checked(await post("/api/v1/actions", email, { "Idempotency-Key": "conformance-1" }), SUBMIT);
  expect(replay).toMatchObject({ replayed: true, id: pending.id });
  // A replay of an allowed read, with its recorded run.
  await post("/api/v1/actions", { tool: "get_invoice", args: { invoice_number: "INV-1045" } }, { "Idempotency-Key": "conformance-2" });
  const readAgain = await doc.checked(await post("/api/v1/actions", { tool: "get_invoice", args: { invoice_number: "INV-1045" } }, { "Idempotency-Key": "conformance-2" }), SUBMIT);
  expect(readAgain).toMatchObject({ state: "allowed", replayed: true, execution: { state: "succeeded" } });

  // Read and wait: pending, then decided.
  await doc.checked(await get(`/api/v1/actions/${pending.id}`), ACTION);
  await doc.checked(await get(`/api/v1/actions/${pending.id}/decision?timeout=0`), DECISION);
  await decide(agent, String(pending.id), String(pending.payloadHash), "approve");
  await doc.checked(await get(`/api/v1/actions/${pending.id}/decision?timeout=0`), DECISION);

  // Execute a tool call (JSON), then its replay.
  const executed = await doc.checked(await post(`/api/v1/actions/${pending.id}/execute`, {}, { "Idempotency-Key": "conf-exec-1" }), EXECUTE);
  expect(executed).toMatchObject({ id: pending.id, replayed: false, idempotencyKey: "conf-exec-1" });
  expect((await doc.checked(await post(`/api/v1/actions/${pending.id}/execute`, {}, { "Idempotency-Key": "conf-exec-2" }), EXECUTE)).replayed).toBe(true);
  await doc.checked(await get(`/api/v1/actions/${pending.id}`), ACTION);

  // Execute code: the NDJSON stream, line by line, and its replay.
  const code = await doc.checked(await post("/api/v1/actions", { code: CODE, language: "python" }), SUBMIT);
  await decide(agent, String(code.id), String(code.payloadHash), "approve");
  const stream = await post(`/api/v1/actions/${code.id}/execute`, {}, { "Idempotency-Key": "conf-code-1" });
  expect(stream.headers()["content-type"]).toContain("application/x-ndjson");
  const events = doc.expectStreamConforms(await stream.text(), { ...EXECUTE, status: 200 });
  expect(events.at(-1)).toMatchObject({ type: "result", state: "succeeded", replayed: false });
  const replayed = doc.expectStreamConforms(await (await post(`/api/v1/actions/${code.id}/execute`, {}, { "Idempotency-Key": "conf-code-2" })).text(), { ...EXECUTE, status: 200 });
  expect(replayed.at(-1)).toMatchObject({ type: "result", replayed: true });
  await doc.checked(await get(`/api/v1/actions/${code.id}`), ACTION);

  // Cancel, and refusals.
  const toCancel = await doc.checked(await post("/api/v1/actions", { ...email, args: { ...email.args, body: "Cancel me." } }), SUBMIT);
  await doc.checked(await post(`/api/v1/actions/${toCancel.id}/cancel`, { reason: "Not needed" }), CANCEL);
  await doc.checked(await post(`/api/v1/actions/${toCancel.id}/cancel`, {}), CANCEL); // 409
  await doc.checked(await post(`/api/v1/actions/${toCancel.id}/execute`, {}, { "Idempotency-Key": "conf-exec-3" }), EXECUTE); // 409
  await doc.checked(await post("/api/v1/actions", { code: "print(1)" }), SUBMIT); // 400
  await doc.checked(await post("/api/v1/actions", { ...email, args: { ...email.args, body: "Other." } }, { "Idempotency-Key": "conformance-1" }), SUBMIT); // 409
  await doc.checked(await get("/api/v1/actions/00000000-0000-4000-8000-000000000000"), ACTION); // 404
  await doc.checked(await request.get("/api/v1/actions/00000000-0000-4000-8000-000000000000"), ACTION); // 401
});
