import { CallToolResultSchema, ErrorCode, McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { stripInvisible } from "@/lib/agent/untrusted";
import { SYSTEM_ACTOR } from "@/lib/approvals/actors";
import { auditBodyOf } from "@/lib/audit/append-audit-event";
import { requestSeal } from "@/lib/audit/seal-audit-chain";
import type { JsonObject, JsonValue } from "@/lib/canonical/json-value";
import { hasPool } from "@/lib/db/sql";
import { holdMcpTool } from "@/lib/db/statements/mcp/hold-mcp-tool";
import { readMcpServer } from "@/lib/db/statements/mcp/read-mcp-server";
import { AppError, OutcomeUnknownError } from "@/lib/errors";
import { openSecrets, redactSecrets } from "@/lib/mcp/upstream/secret-box";
import { definitionOf } from "@/lib/mcp/upstream/tool-definition";
import { listUpstreamTools, upstreamMessage, upstreamTimeoutMs, UpstreamTooLarge, withUpstream, type UpstreamEndpoint } from "@/lib/mcp/upstream/upstream-client";
import type { DeliverContext, ToolOutcome } from "@/lib/tools/tool";

/** What `apply` handed over: the pinned definition the claim verified. */
const AppliedSchema = z.object({ serverId: z.string(), server: z.string(), tool: z.string(), definitionHash: z.string() });

/** How much of an upstream result is kept: text beyond it is cut (and says so). */
const MAX_TEXT_CHARS = 100_000;
const MAX_STRUCTURED_CHARS = 200_000;
const MAX_DEPTH = 32;

/**
 * The one forwarded call of an approved upstream action, after its claim committed: connect, list
 * the server's tools and check that the tool still hashes to the definition reviewers approved —
 * if not, hold the tool (recording what the server now lists) and refuse, calling nothing — then
 * call it exactly once. Refusals before the call are AppErrors (recorded failed: nothing left).
 * Once the call is sent, anything but an answer it can read (a timeout, a dropped connection, a
 * crash, an answer past MCP_UPSTREAM_MAX_BYTES) is thrown as something other than an AppError, so
 * the machinery records the outcome unknown and never repeats it.
 */
export async function deliverUpstreamCall(ctx: DeliverContext, call: { qualifiedName: string; args: JsonObject }): Promise<ToolOutcome> {
  const pinned = AppliedSchema.parse(ctx.applied);
  const server = await readMcpServer(ctx.q, { tenantId: ctx.tenantId, serverId: pinned.serverId });
  if (!server) throw new AppError("upstream_removed", `The MCP server ${pinned.server} was removed, so nothing was called.`, 409);
  const secrets = openSecrets(server.sealedSecrets, { tenantId: ctx.tenantId, serverId: server.id, serverName: server.name });
  const endpoint: UpstreamEndpoint = {
    serverName: server.name, transport: server.transport, url: server.url, command: server.command, args: server.args, secrets,
  };
  return withUpstream(endpoint, async (client, signal) => {
    const listed = await listUpstreamTools(client, endpoint, { signal });
    const tool = listed.find((t) => t.name === pinned.tool);
    if (!tool) throw new AppError("upstream_tool_missing", `MCP server ${server.name} no longer lists ${pinned.tool}, so nothing was called.`, 409);
    const found = definitionOf(tool);
    if (!found.ok || found.hash !== pinned.definitionHash) {
      if (found.ok) await hold(ctx, call.qualifiedName, pinned, found.definition as unknown as JsonObject, found.hash);
      throw new AppError(
        "upstream_changed",
        `MCP server ${server.name} now describes ${pinned.tool} differently from the definition the reviewers approved, so nothing was called. The tool is held until an admin reviews the change (Admin → Upstream MCP servers).`,
        409,
      );
    }
    let result: CallToolResult;
    try {
      // The SDK's request, not callTool: callTool can throw after the server answered (its own
      // output-schema check), which would hide that the call happened.
      result = await client.request(
        { method: "tools/call", params: { name: pinned.tool, arguments: call.args } },
        CallToolResultSchema,
        // Past MCP_UPSTREAM_MAX_BYTES the answer is not read: `signal` fails the request.
        { timeout: upstreamTimeoutMs(), signal },
      );
    } catch (error) {
      if (signal.reason instanceof UpstreamTooLarge) {
        throw new OutcomeUnknownError(`${signal.reason.message} The call was sent, so ${pinned.tool} may have run: what it did is unknown.`);
      }
      // The server answered with a protocol error (an unknown tool, arguments it refuses): it did
      // not run the tool. Every other failure leaves the outcome unknown.
      if (error instanceof McpError && error.code !== ErrorCode.RequestTimeout && error.code !== ErrorCode.ConnectionClosed) {
        throw new AppError("upstream_error", `MCP server ${server.name} refused the call: ${upstreamMessage(error, endpoint)}`, 502);
      }
      throw error;
    }
    return outcomeOf(result, pinned, secrets);
  }, { signal: ctx.signal });
}

async function hold(ctx: DeliverContext, qualifiedName: string, pinned: z.infer<typeof AppliedSchema>, seen: JsonObject, seenHash: string): Promise<void> {
  await holdMcpTool(ctx.q, {
    tenantId: ctx.tenantId, qualifiedName, approvedHash: pinned.definitionHash, pending: seen, pendingHash: seenHash,
    held: auditBodyOf({
      tenantId: ctx.tenantId, actor: SYSTEM_ACTOR, type: "mcp.tool_held", outcome: "refused", subject: { type: "mcp_tool", id: qualifiedName },
      tool: qualifiedName, status: "held",
      data: { server: pinned.server, tool: pinned.tool, approvedHash: pinned.definitionHash, seenHash, detectedBy: "execution" },
    }),
  });
  if (hasPool(ctx.q)) void requestSeal(ctx.q, ctx.tenantId);
}

/**
 * The upstream result as the execution records it: marked untrusted (whoever hands it to a model
 * wraps it as data, lib/agent/untrusted.ts), text cleaned of invisible characters and secrets and
 * bounded, non-text content described rather than stored.
 */
function outcomeOf(result: CallToolResult, pinned: z.infer<typeof AppliedSchema>, secrets: Record<string, string>): ToolOutcome {
  const text = (value: string, max: number) => {
    const clean = stripInvisible(redactSecrets(value, secrets));
    return clean.length > max ? `${clean.slice(0, max)}\n[truncated: ${clean.length - max} more characters]` : clean;
  };
  const content: JsonObject[] = result.content.map((block): JsonObject => {
    switch (block.type) {
      case "text":
        return { type: "text", text: text(block.text, MAX_TEXT_CHARS) };
      case "image":
      case "audio":
        return { type: block.type, mimeType: text(block.mimeType, 200), bytes: Math.floor((block.data.length * 3) / 4) };
      case "resource_link":
        return { type: "resource_link", uri: text(block.uri, 2_000), name: text(block.name, 500) };
      case "resource":
        return {
          type: "resource", uri: text(block.resource.uri, 2_000),
          ...("text" in block.resource && typeof block.resource.text === "string" ? { text: text(block.resource.text, MAX_TEXT_CHARS) } : {}),
        };
      default:
        return { type: "unknown" };
    }
  });
  const structured = result.structuredContent === undefined ? null : plainJson(result.structuredContent, text, 0);
  const structuredJson = structured === null ? "" : JSON.stringify(structured);
  const isError = result.isError === true;
  const firstText = content.find((c) => c.type === "text")?.text;
  return {
    ok: !isError,
    result: {
      server: pinned.server, tool: pinned.tool, untrusted: true, isError, content,
      ...(structured !== null && structuredJson.length <= MAX_STRUCTURED_CHARS ? { structuredContent: structured } : {}),
      ...(structured !== null && structuredJson.length > MAX_STRUCTURED_CHARS ? { structuredContentOmitted: `${structuredJson.length} characters` } : {}),
      ...(isError ? { error: `The MCP tool reported an error: ${typeof firstText === "string" ? firstText.slice(0, 500) : "(no text)"}` } : {}),
    },
  };
}

/** An upstream JSON value with every string (keys too) cleaned like text, bounded in depth. */
function plainJson(value: unknown, text: (value: string, max: number) => string, depth: number): JsonValue {
  if (depth > MAX_DEPTH) return "[nested too deep]";
  if (value === null || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "string") return text(value, MAX_TEXT_CHARS);
  if (Array.isArray(value)) return value.map((item) => plainJson(item, text, depth + 1));
  if (typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([key]) => key !== "__proto__" && key !== "constructor" && key !== "prototype")
        .map(([key, item]) => [text(key, 200), plainJson(item, text, depth + 1)]),
    );
  }
  return null;
}
