import { z } from "zod";
import { API_ROUTES, STREAM_EVENT_SCHEMA, type ApiRouteDefinition } from "@/lib/api/api-routes";
import { ErrorResponseSchema } from "@/lib/api/schemas";

type JsonSchema = Record<string, unknown>;

/**
 * Converts a zod schema to JSON Schema 2020-12 (the OpenAPI 3.1 and 3.2 dialect), moving named
 * sub-schemas (`.meta({ id })`) into components so each is described once.
 */
function toSchema(schema: z.ZodType, io: "input" | "output", components: Record<string, JsonSchema>): JsonSchema {
  const converted = z.toJSONSchema(schema, { io, target: "draft-2020-12", unrepresentable: "any" }) as JsonSchema;
  const rewritten = JSON.parse(JSON.stringify(converted).replaceAll('"#/$defs/', '"#/components/schemas/')) as JsonSchema;
  const { $schema: _dialect, $defs, ...rest } = rewritten as JsonSchema & { $defs?: Record<string, JsonSchema> };
  for (const [id, def] of Object.entries($defs ?? {})) components[id] ??= def;
  return rest;
}

const ERROR_REF = { $ref: "#/components/schemas/Error" };

/** The OpenAPI versions served: 3.2 (`/api/v1/openapi.json`) and a 3.1 rendition for tools that refuse 3.2. */
export type OpenApiVersion = "3.2" | "3.1";

function operationFor(route: ApiRouteDefinition, components: Record<string, JsonSchema>, version: OpenApiVersion) {
  const parameters: JsonSchema[] = [];
  if (route.path.includes("{id}")) {
    parameters.push({ name: "id", in: "path", required: true, description: "The action id.", schema: { type: "string", format: "uuid" } });
  }
  if (route.path.includes("{artifactId}")) {
    parameters.push({ name: "artifactId", in: "path", required: true, description: "The artifact id (from the execution's result.artifacts).", schema: { type: "string", format: "uuid" } });
  }
  if (route.query) {
    const query = toSchema(route.query, "input", components) as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [name, schema] of Object.entries(query.properties ?? {})) {
      parameters.push({ name, in: "query", required: query.required?.includes(name) ?? false, description: schema.description, schema });
    }
  }
  for (const header of route.headers ?? []) {
    parameters.push({ name: header.name, in: "header", required: header.required, description: header.description, schema: { type: "string" } });
  }
  const responses: Record<string, JsonSchema> = {};
  for (const [status, spec] of Object.entries(route.responses)) {
    const code = Number(status);
    const content: JsonSchema = {};
    if (spec.schema) content["application/json"] = { schema: toSchema(spec.schema, "output", components) };
    else if (spec.contentType) content[spec.contentType] = { schema: { type: "string", contentMediaType: spec.contentType } };
    else if (code >= 400) content["application/json"] = { schema: ERROR_REF };
    if (route.operationId === "executeAction" && code === 200) {
      // A stream of events, one JSON object per line: OpenAPI 3.2's `itemSchema` says what each
      // line is. `schema` describes the whole stream read as an array (3.2's reading of a
      // sequential media type), which is also what tools that predate `itemSchema` can use.
      const event = toSchema(STREAM_EVENT_SCHEMA, "output", components);
      content["application/x-ndjson"] = {
        ...(version === "3.2" ? { itemSchema: event } : {}),
        schema: { type: "array", items: event, description: "The whole stream: one ExecutionStreamEvent per line, in order." },
      };
    }
    responses[status] = {
      description: spec.description,
      ...(Object.keys(content).length ? { content } : {}),
      ...(spec.headers
        ? { headers: Object.fromEntries(Object.entries(spec.headers).map(([name, { description, type }]) => [name, { description, schema: { type } }])) }
        : {}),
    };
  }
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    ...(route.public ? { security: [] } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(route.body
      ? { requestBody: { required: Boolean(route.bodyRequired), content: { "application/json": { schema: toSchema(route.body, "input", components) } } } }
      : {}),
    responses,
  };
}

/**
 * The OpenAPI document for /api/v1, built from the route definitions the handlers use. 3.2 by
 * default for one reason: it is the first version that can type a streamed response item by item
 * (`itemSchema`, for execute's NDJSON); nothing else in the document needs more than 3.1. The 3.1
 * rendition is the same document without `itemSchema` (the stream stays typed as an array of
 * events), for tools that refuse 3.2 (@apidevtools/swagger-parser).
 */
export function buildOpenApiDocument(version: OpenApiVersion = "3.2") {
  const components: Record<string, JsonSchema> = {};
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of Object.values(API_ROUTES) as ApiRouteDefinition[]) {
    paths[route.path] ??= {};
    paths[route.path][route.method.toLowerCase()] = operationFor(route, components, version);
  }
  // Registers the Error component that every 4xx response refers to.
  toSchema(ErrorResponseSchema, "output", components);
  return {
    openapi: version === "3.2" ? "3.2.0" : "3.1.1",
    info: {
      title: "Countersign agent API",
      version: "1.0.0",
      description:
        "Put a human gate in front of an agent's side effects: submit a tool call or code, wait for a reviewer's decision, execute the approved action once. Authenticate with `Authorization: Bearer <api key>` (created by an admin). Errors are `{ error: { code, message, details? } }`.",
    },
    servers: [{ url: "/" }],
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", description: "An API key: cs_live_<prefix>_<secret>." } },
      schemas: components,
    },
  };
}
