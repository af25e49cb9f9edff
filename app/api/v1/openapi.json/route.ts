import { buildOpenApiDocument } from "@/lib/api/openapi";

export const dynamic = "force-static";

/** The agent API's OpenAPI 3.2 document, generated from the schemas the handlers validate with. */
export function GET() {
  return Response.json(buildOpenApiDocument(), { headers: { "Cache-Control": "public, max-age=300" } });
}
