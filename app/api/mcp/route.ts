import { handleMcpRequest } from "@/lib/mcp/handle-mcp-request";

export const dynamic = "force-dynamic";

/** Countersign as an MCP server (Streamable HTTP): see docs/MCP.md and lib/mcp/handle-mcp-request.ts. */
export function POST(request: Request): Promise<Response> {
  return handleMcpRequest(request);
}

/** Ends a session. */
export function DELETE(request: Request): Promise<Response> {
  return handleMcpRequest(request);
}

/** 405: there is no server-initiated stream. */
export function GET(request: Request): Promise<Response> {
  return handleMcpRequest(request);
}
