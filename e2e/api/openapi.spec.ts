import { expect, test } from "@playwright/test";

const EXPECTED = [
  "POST /api/v1/actions",
  "GET /api/v1/actions/{id}",
  "GET /api/v1/actions/{id}/decision",
  "POST /api/v1/actions/{id}/execute",
  "POST /api/v1/actions/{id}/cancel",
  "GET /api/v1/actions/{id}/artifacts/{artifactId}",
  "GET /api/v1/openapi.json",
  "GET /api/v1/openapi-3.1.json",
  "GET /api/v1/audit/checkpoint",
  "GET /api/v1/audit/proofs/inclusion",
  "GET /api/v1/audit/proofs/consistency",
];

test("the OpenAPI 3.2 document is served without a key and lists every route", async ({ request }) => {
  const res = await request.get("/api/v1/openapi.json");
  expect(res.status()).toBe(200);
  const doc = await res.json();
  expect(doc.openapi).toBe("3.2.0");
  expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
  const listed = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));
  expect(listed.sort()).toEqual([...EXPECTED].sort());
  const execute = doc.paths["/api/v1/actions/{id}/execute"].post;
  expect(execute.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: "Idempotency-Key", in: "header", required: true })]));
  expect(Object.keys(execute.responses["200"].content)).toEqual(expect.arrayContaining(["application/json", "application/x-ndjson"]));
  // The stream is typed line by line (OpenAPI 3.2's itemSchema), not as one event.
  expect(execute.responses["200"].content["application/x-ndjson"].itemSchema).toEqual({ $ref: "#/components/schemas/ExecutionStreamEvent" });
  expect(execute.responses["200"].content["application/x-ndjson"].schema).toMatchObject({ type: "array", items: { $ref: "#/components/schemas/ExecutionStreamEvent" } });
  expect(doc.paths["/api/v1/actions"].post.responses["429"].headers["Retry-After"]).toBeTruthy();
  const submit = doc.paths["/api/v1/actions"].post;
  expect(submit.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: "Idempotency-Key", in: "header", required: false })]));
  expect(submit.responses["200"].headers["Idempotent-Replayed"].schema).toEqual({ type: "boolean" });
  expect(submit.responses["409"].description).toContain("idempotency_key_reused");
  for (const [, ref] of JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)) expect(doc.components.schemas).toHaveProperty(ref);

  // The 3.1 rendition of the same routes, for tools that refuse 3.2 (lib/api/openapi-31.test.ts validates it).
  const rendition = await request.get("/api/v1/openapi-3.1.json");
  expect(rendition.status()).toBe(200);
  const doc31 = await rendition.json();
  expect(doc31.openapi).toBe("3.1.1");
  expect(Object.keys(doc31.paths).sort()).toEqual(Object.keys(doc.paths).sort());
});
