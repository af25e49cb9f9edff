import { buildOpenApiDocument } from "@/lib/api/openapi";

export const dynamic = "force-static";

/** The agent API's OpenAPI 3.1 rendition (the 3.2 document without `itemSchema`), for tools that refuse 3.2. */
export function GET() {
  return Response.json(buildOpenApiDocument("3.1"), { headers: { "Cache-Control": "public, max-age=300" } });
}
