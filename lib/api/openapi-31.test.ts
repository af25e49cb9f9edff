import SwaggerParser from "@apidevtools/swagger-parser";
import { describe, expect, it } from "vitest";
import { GET as getOpenApi31 } from "@/app/api/v1/openapi-3.1.json/route";
import { API_ROUTES } from "@/lib/api/api-routes";
import { buildOpenApiDocument } from "@/lib/api/openapi";

type Document = NonNullable<Parameters<SwaggerParser.ApiCallback>[1]>;

type Built = ReturnType<typeof buildOpenApiDocument>;
type Operation = { responses: Record<string, { content?: Record<string, Record<string, unknown>> }>; requestBody?: { content: Record<string, { schema: Record<string, unknown> }> } };

/** The 3.1 rendition as the route serves it (a fresh copy each time: swagger-parser rewrites what it is given). */
async function served(): Promise<Built> {
  const response = getOpenApi31();
  expect(response.status).toBe(200);
  return (await response.json()) as Built;
}

const operation = (doc: Built, path: string, method: string) => doc.paths[path][method] as Operation;

describe("the OpenAPI 3.1 rendition (/api/v1/openapi-3.1.json)", () => {
  it("is the 3.2 document's routes and schemas, without 3.2's itemSchema", async () => {
    const doc = await served();
    const full = buildOpenApiDocument();
    expect(doc.openapi).toBe("3.1.1");
    expect(Object.keys(doc.paths).sort()).toEqual(Object.keys(full.paths).sort());
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/api/v1/openapi.json", API_ROUTES.openApi31.path]));
    expect(JSON.stringify(doc)).not.toContain('"itemSchema":');
    const stream = operation(doc, "/api/v1/actions/{id}/execute", "post").responses["200"].content!["application/x-ndjson"];
    expect(stream.schema).toMatchObject({ type: "array", items: { $ref: "#/components/schemas/ExecutionStreamEvent" } });
    // Only the version and the stream's itemSchema differ.
    const withoutItemSchema = JSON.parse(JSON.stringify(full).replace(/"itemSchema":\{"\$ref":"[^"]+"\},/g, "")) as typeof full;
    expect({ ...doc, openapi: full.openapi }).toEqual(withoutItemSchema);
  });

  it("@apidevtools/swagger-parser validates, dereferences and bundles it", async () => {
    const validated = await SwaggerParser.validate((await served()) as Document);
    expect(validated).toMatchObject({ openapi: "3.1.1" });

    const dereferenced = (await SwaggerParser.dereference((await served()) as Document)) as Built;
    expect(JSON.stringify(dereferenced, (key, value: unknown) => (key === "$ref" ? "REF" : value))).not.toContain("REF");
    const submit = operation(dereferenced, "/api/v1/actions", "post");
    expect(submit.requestBody?.content["application/json"].schema).toHaveProperty("anyOf");

    const bundled = await SwaggerParser.bundle((await served()) as Document);
    expect(JSON.stringify(bundled)).toContain('"$ref":"#/components/schemas/ExecutionStreamEvent"');
    await expect(SwaggerParser.validate(bundled)).resolves.toBeTruthy();
  });

  it("swagger-parser refuses the 3.2 document, which is why the 3.1 rendition exists", async () => {
    await expect(SwaggerParser.validate(JSON.parse(JSON.stringify(buildOpenApiDocument())) as Document)).rejects.toThrow(/3\.2\.0.*not supported|only supports/i);
  });
});
