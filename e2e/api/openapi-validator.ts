import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { expect, type APIRequestContext, type APIResponse } from "@playwright/test";

const DOCUMENT_ID = "https://countersign.invalid/api/v1/openapi.json";

/** JSON Pointer escaping of one path segment (RFC 6901). */
const pointer = (...segments: string[]) => segments.map((s) => s.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");

/**
 * Checks real responses against the OpenAPI document the server serves: the schema of the
 * operation, status and media type, with every `$ref` resolved inside the document. For NDJSON,
 * every line against the media type's `itemSchema`.
 */
export class OpenApiValidator {
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();

  private constructor(private readonly doc: { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, Record<string, unknown>> }> }>> }) {
    // Formats are not checked (their patterns are): the document's own keywords are.
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    this.ajv.addSchema({ ...doc, $id: DOCUMENT_ID });
  }

  static async load(request: APIRequestContext): Promise<OpenApiValidator> {
    const res = await request.get("/api/v1/openapi.json");
    expect(res.status()).toBe(200);
    return new OpenApiValidator(await res.json());
  }

  private validator(path: string, method: string, status: number, mediaType: string, keyword: "schema" | "itemSchema"): ValidateFunction {
    const at = pointer("paths", path, method, "responses", String(status), "content", mediaType, keyword);
    let validate = this.compiled.get(at);
    if (!validate) {
      const media = this.doc.paths[path]?.[method]?.responses[String(status)]?.content?.[mediaType];
      expect(media?.[keyword], `the document describes ${method.toUpperCase()} ${path} ${status} ${mediaType} (${keyword})`).toBeTruthy();
      validate = this.ajv.compile({ $ref: `${DOCUMENT_ID}#/${at}` });
      this.compiled.set(at, validate);
    }
    return validate;
  }

  /** The body conforms to what the document says this operation answers with this status. */
  expectConforms(body: unknown, operation: { path: string; method: "get" | "post"; status: number; mediaType?: string }) {
    const validate = this.validator(operation.path, operation.method, operation.status, operation.mediaType ?? "application/json", "schema");
    const ok = validate(body);
    expect(ok, `${operation.method.toUpperCase()} ${operation.path} ${operation.status}: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(body)}`).toBe(true);
  }

  /** Every line of an NDJSON body conforms to the media type's item schema. Returns the events. */
  expectStreamConforms(text: string, operation: { path: string; method: "post"; status: number }): Array<Record<string, unknown>> {
    const validate = this.validator(operation.path, operation.method, operation.status, "application/x-ndjson", "itemSchema");
    const events = text.split("\n").filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events.length).toBeGreaterThan(0);
    for (const event of events) {
      expect(validate(event), `stream line ${JSON.stringify(event)}: ${this.ajv.errorsText(validate.errors)}`).toBe(true);
    }
    return events;
  }

  /** A response's JSON body, checked against the document for its own status. */
  async checked(response: APIResponse, operation: { path: string; method: "get" | "post" }): Promise<Record<string, unknown>> {
    const body = (await response.json()) as Record<string, unknown>;
    this.expectConforms(body, { ...operation, status: response.status() });
    return body;
  }
}
