import { z } from "zod";
import { readEnv } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { SERVER_NAME_PATTERN } from "@/lib/mcp/upstream/tool-definition";

/**
 * How an admin describes an upstream server, checked before anything is stored or started. The
 * checks that depend on this console's configuration (the stdio allowlist) are in
 * `assertStdioCommandAllowed`, which also runs before every start of the command.
 */

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
// RFC 9110 token characters.
const HEADER_NAME = /^[!#$%&'*+.^`|~\w-]{1,128}$/;
/** Headers the transport sets itself, or that would change what a request is. */
const RESERVED_HEADERS = new Set([
  "host", "content-length", "content-type", "accept", "connection", "transfer-encoding", "upgrade", "te", "trailer",
  "mcp-session-id", "mcp-protocol-version", "last-event-id",
]);
/**
 * Environment variables that change which code a started command runs rather than how it is
 * configured; the command's own environment starts from a few safe variables (PATH, HOME, USER …).
 */
const RESERVED_ENV = /^(?:PATH|LD_\w*|DYLD_\w*|NODE_OPTIONS|NODE_PATH|PYTHON(?:PATH|STARTUP|HOME)|PERL5?LIB|PERL5OPT|RUBYOPT|RUBYLIB|BASH_ENV|ENV)$/;

export const MAX_SECRETS = 20;

const SecretSchema = z.strictObject({
  name: z.string().trim().min(1, "a secret needs a name"),
  value: z.string().min(1, "a secret needs a value").max(8_000, "a secret value is at most 8,000 characters").refine((v) => !v.includes("\0"), "a secret value cannot contain NUL"),
});

export const McpServerNameSchema = z
  .string()
  .trim()
  .regex(SERVER_NAME_PATTERN, "Server names are 1–32 of a–z, 0–9 and single hyphens, starting with a letter (e.g. github or issue-tracker).");

export const RegisterMcpServerSchema = z.discriminatedUnion("transport", [
  z.strictObject({
    name: McpServerNameSchema,
    transport: z.literal("http"),
    url: z.string().trim().min(1, "Give the server's URL.").max(2_000),
    secrets: z.array(SecretSchema).max(MAX_SECRETS).default([]),
  }),
  z.strictObject({
    name: McpServerNameSchema,
    transport: z.literal("stdio"),
    command: z.string().trim().min(1, "Give the command to run.").max(1_000),
    args: z.array(z.string().max(1_000).refine((a) => !a.includes("\0"), "an argument cannot contain NUL")).max(50).default([]),
    secrets: z.array(SecretSchema).max(MAX_SECRETS).default([]),
  }),
]);
export type RegisterMcpServer = z.input<typeof RegisterMcpServerSchema>;
export type McpServerSpec = z.output<typeof RegisterMcpServerSchema>;

/** An http(s) URL without credentials in it (those go in a header, where they are sealed). */
export function checkedServerUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError("invalid_mcp_server", `"${raw.slice(0, 200)}" is not a URL: give the server's Streamable HTTP endpoint, e.g. https://mcp.example.com/mcp.`, 400);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new AppError("invalid_mcp_server", `An MCP server URL must start with http:// or https:// (this one is ${url.protocol}).`, 400);
  }
  if (url.username || url.password) {
    throw new AppError("invalid_mcp_server", "Take the credentials out of the URL and give them as a secret header (e.g. Authorization), which is stored sealed.", 400);
  }
  url.hash = "";
  return url.toString();
}

/** The commands this console lets admins run as stdio servers (MCP_STDIO_COMMANDS). */
export function allowedStdioCommands(): string[] {
  return readEnv("MCP_STDIO_COMMANDS") ?? [];
}

/** Refuses a command the operator has not listed, in one line that says how to allow it. */
export function assertStdioCommandAllowed(command: string): void {
  const allowed = allowedStdioCommands();
  if (allowed.length === 0) {
    throw new AppError(
      "stdio_not_enabled",
      "Stdio MCP servers are off on this console: the operator can allow specific commands by listing their absolute paths in MCP_STDIO_COMMANDS.",
      403,
    );
  }
  if (!allowed.includes(command)) {
    throw new AppError(
      "stdio_command_not_allowed",
      `${command.slice(0, 200)} is not one of the commands this console may run (MCP_STDIO_COMMANDS lists ${allowed.join(", ")}); the operator must add its absolute path there.`,
      403,
    );
  }
}

/** The secrets as a name → value map, with names that fit the transport and no name twice. */
export function checkedSecrets(transport: "http" | "stdio", secrets: ReadonlyArray<{ name: string; value: string }>): Record<string, string> {
  const out: Record<string, string> = {};
  const seen = new Set<string>();
  for (const { name, value } of secrets) {
    if (transport === "http") {
      if (!HEADER_NAME.test(name)) throw new AppError("invalid_mcp_server", `"${name.slice(0, 100)}" is not an HTTP header name.`, 400);
      if (RESERVED_HEADERS.has(name.toLowerCase())) throw new AppError("invalid_mcp_server", `The ${name} header is set by the MCP transport itself; it cannot be a secret.`, 400);
      if (/[\r\n]/.test(value)) throw new AppError("invalid_mcp_server", `The value of ${name} contains a line break, which a header cannot carry.`, 400);
    } else {
      if (!ENV_NAME.test(name)) throw new AppError("invalid_mcp_server", `"${name.slice(0, 100)}" is not an environment variable name (letters, digits, _).`, 400);
      if (RESERVED_ENV.test(name)) throw new AppError("invalid_mcp_server", `${name} changes which code the command runs, so it cannot be set for an MCP server.`, 400);
    }
    const key = transport === "http" ? name.toLowerCase() : name;
    if (seen.has(key)) throw new AppError("invalid_mcp_server", `The secret ${name} is given twice.`, 400);
    seen.add(key);
    out[name] = value;
  }
  return out;
}
