import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { assertCanonicalizable } from "@/lib/canonical/assert-canonicalizable";
import { canonicalJson } from "@/lib/canonical/canonical-json";
import { jsonCharsAtMost } from "@/lib/canonical/json-chars";
import type { JsonObject } from "@/lib/canonical/json-value";
import { sha256Hex } from "@/lib/canonical/sha256-hex";
import type { ToolClass } from "@/lib/risk/risk-tags-for";

/**
 * What an upstream server says about one of its tools, as far as agents and reviewers see it:
 * the part an admin approves and the console pins. Anything else a listing carries (icons,
 * `_meta`) is neither shown nor pinned.
 */
export type UpstreamDefinition = {
  name: string;
  title: string | null;
  description: string | null;
  inputSchema: JsonObject;
  outputSchema: JsonObject | null;
  annotations: UpstreamAnnotations | null;
};

/** The MCP tool annotations: hints from the server, never trusted to lower a call's risk. */
export type UpstreamAnnotations = {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
};

/** Limits that keep one listing from filling the database or a reviewer's page. */
export const MAX_DESCRIPTION_CHARS = 10_000;
export const MAX_DEFINITION_CHARS = 100_000;
export const MAX_TOOL_NAME_CHARS = 128;

/** A tool's definition as pinned, or why it cannot be pinned (shown to the admin). */
export function definitionOf(tool: Tool): { ok: true; definition: UpstreamDefinition; hash: string } | { ok: false; problem: string } {
  if (tool.name.length === 0 || tool.name.length > MAX_TOOL_NAME_CHARS || /\p{Cc}/u.test(tool.name)) {
    return { ok: false, problem: `its name is not 1–${MAX_TOOL_NAME_CHARS} printable characters` };
  }
  if ((tool.description?.length ?? 0) > MAX_DESCRIPTION_CHARS) return { ok: false, problem: `its description is longer than ${MAX_DESCRIPTION_CHARS} characters` };
  const annotations = tool.annotations ? annotationsOf(tool.annotations) : null;
  const definition = {
    name: tool.name,
    title: tool.title ?? null,
    description: tool.description ?? null,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema ?? null,
    annotations,
  };
  // Measured first, at a cost bounded by the limit (the canonical form below grows with the
  // definition); roughly, so only what is clearly too long stops here and the exact check decides.
  if (jsonCharsAtMost(definition, 2 * MAX_DEFINITION_CHARS) > 2 * MAX_DEFINITION_CHARS) {
    return { ok: false, problem: `its definition is longer than ${MAX_DEFINITION_CHARS} characters` };
  }
  try {
    assertCanonicalizable(definition, { path: "definition" });
  } catch (error) {
    return { ok: false, problem: `its definition is not plain JSON (${(error as Error).message})` };
  }
  const canonical = canonicalJson(definition);
  if (canonical.length > MAX_DEFINITION_CHARS) return { ok: false, problem: `its definition is longer than ${MAX_DEFINITION_CHARS} characters` };
  return { ok: true, definition: definition as UpstreamDefinition, hash: sha256Hex(canonical) };
}

function annotationsOf(raw: NonNullable<Tool["annotations"]>): UpstreamAnnotations {
  const out: UpstreamAnnotations = {};
  if (typeof raw.title === "string") out.title = raw.title;
  for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const) {
    if (typeof raw[hint] === "boolean") out[hint] = raw[hint];
  }
  return out;
}

/**
 * The hints as the MCP specification defaults them (readOnlyHint false, destructiveHint true,
 * idempotentHint false, openWorldHint true): what a reviewer is told the server claims.
 */
export function effectiveHints(annotations: UpstreamAnnotations | null): Required<Omit<UpstreamAnnotations, "title">> {
  return {
    readOnlyHint: annotations?.readOnlyHint ?? false,
    destructiveHint: annotations?.destructiveHint ?? true,
    idempotentHint: annotations?.idempotentHint ?? false,
    openWorldHint: annotations?.openWorldHint ?? true,
  };
}

/**
 * The classes (and so the risk tags) of an upstream tool, from its annotations with the
 * specification's defaults. The hints only add risk: a tool that claims to be read-only is still
 * proposed, assessed by the policy and, without a rule for it, reviewed.
 */
export function classesFromAnnotations(annotations: UpstreamAnnotations | null): ToolClass[] {
  const hints = effectiveHints(annotations);
  const classes: ToolClass[] = [hints.readOnlyHint ? "read" : "write"];
  // The specification gives destructiveHint meaning only for tools that are not read-only.
  if (!hints.readOnlyHint && hints.destructiveHint) classes.push("irreversible");
  if (hints.openWorldHint) classes.push("external-comms");
  return classes;
}

/** Server names: a letter, then letters, digits and single hyphens (no "__", which separates the tool). */
export const SERVER_NAME_PATTERN = /^[a-z](?:[a-z0-9]|-(?=[a-z0-9])){0,31}$/;
const MAX_QUALIFIED_CHARS = 64;
const UNSAFE = /[^A-Za-z0-9_-]/g;

/**
 * The name agents, policies and API keys use for an upstream tool: `<server>__<tool>`, within
 * what OpenAI-style function names allow (A–Z a–z 0–9 _ -, at most 64). A tool name that does not
 * fit as it is — other characters, or too long — gets them replaced and a short hash of its real
 * name appended, so the qualified name depends on that tool's name alone and stays the same on
 * every listing.
 */
export function qualifiedToolName(server: string, tool: string): string {
  const prefix = `${server}__`;
  const safe = tool.replace(UNSAFE, "_");
  if (safe === tool && prefix.length + tool.length <= MAX_QUALIFIED_CHARS) return `${prefix}${tool}`;
  const suffix = `_${sha256Hex(tool).slice(0, 8)}`;
  return `${prefix}${safe.slice(0, MAX_QUALIFIED_CHARS - prefix.length - suffix.length)}${suffix}`;
}
