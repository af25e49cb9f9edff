import { randomUUID } from "node:crypto";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { JsonObject } from "@/lib/canonical/json-value";
import type { StoredMcpTool } from "@/lib/db/statements/mcp/lock-mcp-tools-of-server";
import type { McpToolWrite } from "@/lib/db/statements/mcp/write-mcp-tool-list";
import { definitionOf, qualifiedToolName } from "@/lib/mcp/upstream/tool-definition";

export type HeldTool = { qualifiedName: string; approvedHash: string; seenHash: string };

/** What one listing changes, in the words of its audit event. */
export type Reconciled = {
  writes: McpToolWrite[];
  /** New tools, never approved: they wait for an admin. */
  added: string[];
  /** Approved tools whose server now describes them differently: held until an admin approves the change. */
  held: HeldTool[];
  /** Tools the server no longer lists. */
  gone: string[];
  /** Gone tools listed again. */
  returned: string[];
  /** Listed tools that cannot be pinned, with why. */
  skipped: string[];
};

/**
 * Compares a server's listing with what is recorded for it. A tool whose definition hashes to its
 * pinned one is approved (again); one that differs keeps its pinned definition and is held with
 * the listed one pending; one never approved stays new with the listed one pending. The pinned
 * definition itself never changes here: only an admin's approval changes it.
 */
export function reconcileToolList(server: string, stored: readonly StoredMcpTool[], listed: readonly Tool[]): Reconciled {
  const byName = new Map(stored.map((tool) => [tool.name, tool]));
  const takenQualified = new Map(stored.map((tool) => [tool.qualifiedName, tool.name]));
  const out: Reconciled = { writes: [], added: [], held: [], gone: [], returned: [], skipped: [] };
  const listedNames = new Set<string>();
  // Tools listed with a definition that can be pinned; any other recorded tool is gone (one that
  // turned into something that cannot be pinned, too: it must not stay callable).
  const usable = new Set<string>();
  for (const tool of listed) {
    if (listedNames.has(tool.name)) {
      out.skipped.push(`${tool.name.slice(0, 128)}: listed twice (the first is kept)`);
      continue;
    }
    listedNames.add(tool.name);
    const found = definitionOf(tool);
    if (!found.ok) {
      out.skipped.push(`${tool.name.slice(0, 128)}: ${found.problem}`);
      continue;
    }
    usable.add(tool.name);
    const pending = found.definition as unknown as JsonObject;
    const before = byName.get(tool.name);
    if (!before) {
      const qualifiedName = qualifiedToolName(server, tool.name);
      if (takenQualified.has(qualifiedName)) {
        out.skipped.push(`${tool.name.slice(0, 128)}: its name ${qualifiedName} is already taken by ${takenQualified.get(qualifiedName)}`);
        continue;
      }
      takenQualified.set(qualifiedName, tool.name);
      out.writes.push({ existing: false, id: randomUUID(), name: tool.name, qualifiedName, status: "new", pending, pendingHash: found.hash });
      out.added.push(qualifiedName);
      continue;
    }
    const { qualifiedName } = before;
    if (before.status === "gone") out.returned.push(qualifiedName);
    if (before.approvedHash === found.hash) {
      out.writes.push({ existing: true, id: before.id, name: tool.name, qualifiedName, status: "approved", pending: null, pendingHash: null });
    } else if (before.approvedHash !== null) {
      out.writes.push({ existing: true, id: before.id, name: tool.name, qualifiedName, status: "held", pending, pendingHash: found.hash });
      if (before.status !== "held" || before.pendingHash !== found.hash) {
        out.held.push({ qualifiedName, approvedHash: before.approvedHash, seenHash: found.hash });
      }
    } else {
      out.writes.push({ existing: true, id: before.id, name: tool.name, qualifiedName, status: "new", pending, pendingHash: found.hash });
    }
  }
  for (const tool of stored) {
    if (!usable.has(tool.name) && tool.status !== "gone") out.gone.push(tool.qualifiedName);
  }
  return out;
}
