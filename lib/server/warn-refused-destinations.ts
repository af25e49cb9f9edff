import type { Db } from "@/lib/db/client";
import { isAppError } from "@/lib/errors";
import { checkUpstreamDestination } from "@/lib/mcp/upstream/upstream-destination";
import { checkDestination } from "@/lib/webhooks/destination-guard";

/**
 * The stored MCP servers and webhook endpoints the destination rules refuse now, one line each
 * (tenant, name, host — never the URL, whose query may carry a token — and what to set), logged at
 * start so an upgraded console that reached private hosts says so before the first call fails.
 * Resolves each host once; never throws.
 */
export async function refusedDestinations(db: Db): Promise<string[]> {
  const [servers, endpoints] = await Promise.all([
    db.mcpServer.findMany({ where: { transport: "http" }, select: { name: true, url: true, tenant: { select: { slug: true } } } }),
    db.webhookEndpoint.findMany({ where: { disabledAt: null }, select: { id: true, url: true, allowPrivate: true, tenant: { select: { slug: true } } } }),
  ]);
  const hostOf = (url: string) => {
    try {
      return new URL(url).host;
    } catch {
      return "(not a URL)";
    }
  };
  const lines: string[] = [];
  for (const server of servers) {
    if (!server.url) continue;
    const refused = await checkUpstreamDestination(server.url).then(() => null, (error: unknown) => (isAppError(error) ? error.message : "its URL cannot be checked"));
    if (refused) lines.push(`MCP server ${server.name} of ${server.tenant.slug} (${hostOf(server.url)}) is refused now: ${refused}`);
  }
  for (const endpoint of endpoints) {
    const checked = await checkDestination(endpoint.url, { allowPrivate: endpoint.allowPrivate });
    if (!checked.ok) lines.push(`Webhook endpoint ${endpoint.id} of ${endpoint.tenant.slug} (${hostOf(endpoint.url)}) is refused now: ${checked.reason}`);
  }
  return lines;
}

/** Logs refusedDestinations as warnings, in the background of a start. */
export function warnRefusedDestinations(db: Db): void {
  refusedDestinations(db).then(
    (lines) => {
      for (const line of lines) console.warn(`[countersign] ${line}`);
    },
    (error: unknown) => console.warn(`[countersign] could not check the stored MCP servers' and webhooks' hosts: ${(error as Error).message}`),
  );
}
