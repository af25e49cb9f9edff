import { z } from "zod";
import { parseAddressRanges } from "@/lib/net/address-ranges";

/**
 * Every environment variable Countersign reads, declared once with its type, default and meaning.
 * Nothing else reads `process.env`: code asks `readEnv(name)`, start-up checks them all at once
 * (`environmentProblems`), and the README's configuration table is generated from this list
 * (`npm run env:table`; a test keeps the two equal).
 */

/** Any map of environment variables: the process's, or a plain object in tests. */
export type EnvSource = Readonly<Record<string, string | undefined>>;

/** The process's environment, to hand on whole to a child process (never to read a variable from). */
export function processEnv(): NodeJS.ProcessEnv {
  return process.env;
}

export class EnvError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EnvError";
  }
}

export type EnvSection =
  | "Database" | "Console" | "Single sign-on" | "Models" | "Sandbox" | "Email" | "Agents and workers" | "Upstream MCP servers" | "Webhooks" | "Slack" | "Audit evidence" | "Tests";

type Declaration<S extends z.ZodType = z.ZodType> = {
  schema: S;
  description: string;
  section: EnvSection;
  /** Shown in the table as the default (when the schema's default is not self-explanatory). */
  shownDefault?: string;
  /** Never printed, logged or sent to the client. */
  secret?: boolean;
};

function declare<S extends z.ZodType>(section: EnvSection, schema: S, description: string, extra: Omit<Declaration, "schema" | "description" | "section"> = {}) {
  return { schema, description, section, ...extra } satisfies Declaration<S>;
}

/** An unset or blank variable is absent. */
const opt = <S extends z.ZodType>(schema: S) => z.preprocess((raw) => (typeof raw === "string" && raw.trim() === "" ? undefined : raw), schema.optional());
const int = (min: number, max: number) => z.coerce.number().int(`a whole number`).min(min).max(max);
const flag = z.enum(["0", "1"]);
const url = z.url();
const addressRanges = z.string().transform((raw, ctx) => {
  try {
    return parseAddressRanges(raw) ?? undefined;
  } catch (error) {
    ctx.addIssue({ code: "custom", message: (error as Error).message });
    return z.NEVER;
  }
});
const absolutePaths = z.string().transform((raw, ctx) => {
  const out: string[] = [];
  for (const entry of raw.split(",").map((part) => part.trim()).filter(Boolean)) {
    if (!entry.startsWith("/") || /\/\.\.?(?:\/|$)/.test(entry)) ctx.addIssue({ code: "custom", message: `"${entry}" is not an absolute path like /usr/local/bin/mcp-server-git` });
    else out.push(entry);
  }
  return out;
});
const hostNames = z.string().transform((raw, ctx) => {
  const out: string[] = [];
  for (const entry of raw.split(",").map((part) => part.trim().toLowerCase().replace(/^\[(.*)\]$/, "$1")).filter(Boolean)) {
    if (!/^[a-z0-9._:-]+$/.test(entry)) ctx.addIssue({ code: "custom", message: `"${entry}" is not a host name or address like mcp.internal, mcp_server or 10.0.0.5` });
    else out.push(entry);
  }
  return out;
});
const origins = z.string().transform((raw, ctx) => {
  const out: string[] = [];
  for (const entry of raw.split(",").map((part) => part.trim()).filter(Boolean)) {
    try {
      out.push(new URL(entry).origin);
    } catch {
      ctx.addIssue({ code: "custom", message: `"${entry}" is not a URL like https://console.example.com` });
    }
  }
  return out;
});

export const ENVIRONMENT = {
  // Database
  DATABASE_URL: declare("Database", opt(z.string().regex(/^postgres(ql)?:\/\//, "a postgresql:// URL")),
    "Use this PostgreSQL server (a real cluster in production); nothing bundled is started and nothing is seeded. The console and workers connect with it: make it the app role, which owns nothing (`scripts/db-roles.sql`), and set `DATABASE_OWNER_URL` too.", { secret: true }),
  DATABASE_OWNER_URL: declare("Database", opt(z.string().regex(/^postgres(ql)?:\/\//, "a postgresql:// URL")),
    "The same database as the tables' owner: `npm start` applies migrations and the app role's grants with it, and the console never uses it. Unset, migrations run with `DATABASE_URL`, which then owns the tables, so the audit tables' append-only triggers are no guarantee (a warning says so at start).", { secret: true }),
  DATABASE_POOL_SIZE: declare("Database", opt(int(1, 1000)),
    "Database connections per process: default 20 for a `DATABASE_URL` server, 2 × cores + 1 for the bundled one (it shares this machine's cores)."),
  COUNTERSIGN_SEED_DEMO: declare("Database", opt(flag), "`1`: seed the demo tenant into an external `DATABASE_URL` too (never done unless asked)."),

  // Console
  PORT: declare("Console", opt(int(1, 65_535)), "Where the console listens.", { shownDefault: "first free port from 3000" }),
  NEXTAUTH_URL: declare("Console", opt(url),
    "The console's public URL: sign-in redirects go there, and state-changing requests must come from its origin (at localhost, 127.0.0.1 or [::1], from any of the three at the same port).", { shownDefault: "`http://localhost:PORT`" }),
  COUNTERSIGN_PUBLIC_ORIGINS: declare("Console", opt(origins),
    "More origins the console answers on (comma-separated URLs), e.g. a second host name. A forwarded host header never counts as one."),
  NEXTAUTH_SECRET: declare("Console", opt(z.string().min(32, "at least 32 characters")),
    "Session signing secret. Set it in production.", { secret: true, shownDefault: "generated once into `.data/auth-secret`" }),
  COUNTERSIGN_TRUSTED_PROXIES: declare("Console", opt(addressRanges),
    "Reverse proxies in front of the console whose `X-Forwarded-For` is believed: comma-separated addresses or CIDR ranges, e.g. `10.0.0.0/8,127.0.0.1`. Unset, the client address is the connection's own and `X-Forwarded-For` is ignored; set, the client is the nearest address in it that is not one of these. Sign-in throttling counts clients by this address.",
    { shownDefault: "none" }),
  COUNTERSIGN_IN_PROCESS_WORKER: declare("Console", opt(flag), "`1` (set by `npm start`) runs one task worker inside the web server."),

  // Single sign-on
  OIDC_ISSUER: declare("Single sign-on", opt(url), "Turn on single sign-on with any OpenID Connect provider (with the two below). SSO signs in existing members whose email the provider has verified; it never creates accounts or memberships."),
  OIDC_CLIENT_ID: declare("Single sign-on", opt(z.string().min(1)), "The console's client id at the provider."),
  OIDC_CLIENT_SECRET: declare("Single sign-on", opt(z.string().min(1)), "The console's client secret at the provider.", { secret: true }),
  OIDC_NAME: declare("Single sign-on", opt(z.string().min(1).max(64)), "The sign-in button's label.", { shownDefault: "Single sign-on" }),

  // Audit evidence
  AUDIT_SIGNING_KEY: declare("Audit evidence", opt(z.string().regex(/^[A-Za-z0-9+/_-]{43}=?$/, "32 random bytes in base64, e.g. from `openssl rand -base64 32`")),
    "The audit log's Ed25519 signing seed, which also keys the events' MACs. It must live outside the database: whoever holds it can re-sign history. Back it up: without it, existing evidence still verifies with the public key, but new events cannot continue the log.",
    { secret: true, shownDefault: "generated once into `AUDIT_SIGNING_KEY_FILE`" }),
  AUDIT_SIGNING_KEY_FILE: declare("Audit evidence", opt(z.string().min(1)), "Where the signing seed is kept when `AUDIT_SIGNING_KEY` is not set (created, mode 0600, on first use).",
    { shownDefault: "`.data/audit-signing-key`" }),
  AUDIT_STATE_FILE: declare("Audit evidence", opt(z.string().min(1)),
    "Where the console remembers, outside the database, the failures it found in the evidence (shown on /audit until `npm run audit:resolve`) and the boundary of the events written before MACs existed. Give every console and worker process of one deployment the same file.",
    { shownDefault: "`audit-state.jsonl` beside `AUDIT_SIGNING_KEY_FILE`" }),
  AUDIT_LOG_NAME: declare("Audit evidence", opt(z.string().regex(/^[\x21-\x2a\x2c-\x7e]{1,100}$/, "printable ASCII without spaces or +")),
    "The log's key name in signed checkpoints; each tenant's log is `<name>/<tenant id>`. Use your console's host name, e.g. `console.example.com/audit`.",
    { shownDefault: "`countersign-audit`" }),
  AUDIT_CHECKPOINT_INTERVAL_S: declare("Audit evidence", opt(int(1, 86_400)), "How often the worker signs a checkpoint of each tenant's log that grew.", { shownDefault: "30" }),
  AUDIT_WITNESS_URLS: declare("Audit evidence", opt(z.string().min(1)),
    "Witnesses (C2SP tlog-witness, e.g. `npm run witness`) that co-sign each checkpoint: comma-separated base URLs. Unset, checkpoints are signed by the console alone."),
  AUDIT_WITNESS_KEYS: declare("Audit evidence", opt(z.string().min(1)), "The witnesses' verifier keys (`name+keyid+base64`), comma-separated: cosignatures are checked against them and listed on /audit."),

  // Models
  LLM_PROVIDERS: declare("Models", opt(z.string()),
    'Real models: a JSON array tried in order with failover, e.g. `[{"name":"primary","baseURL":"https://api.openai.com/v1","model":"gpt-4.1-mini","apiKeyEnv":"OPENAI_KEY"},{"name":"backup","baseURL":"http://vllm.internal:8000/v1","model":"qwen","apiKeyEnv":"VLLM_KEY"}]`. Any OpenAI-compatible endpoint. Keys are read from the named variables and never logged.',
    { shownDefault: "none: the offline planner" }),
  OPENAI_API_KEY: declare("Models", opt(z.string().min(1)), "Shorthand for a single provider when `LLM_PROVIDERS` is absent.", { secret: true }),
  OPENAI_BASE_URL: declare("Models", opt(url), "That provider's endpoint.", { shownDefault: "`https://api.openai.com/v1`" }),
  OPENAI_MODEL: declare("Models", opt(z.string().min(1)), "That provider's model.", { shownDefault: "`gpt-4.1-mini`" }),
  LLM_TIMEOUT_MS: declare("Models", opt(int(1, 600_000)), "Per-call timeout before a retry or failover.", { shownDefault: "30000" }),
  LLM_MAX_RETRIES: declare("Models", opt(int(0, 20)), "Retries per provider before failing over.", { shownDefault: "2" }),

  // Sandbox
  SANDBOX_MODE: declare("Sandbox", z.preprocess((raw) => (typeof raw === "string" ? raw.trim().toLowerCase() || undefined : raw), z.enum(["auto", "docker", "bwrap", "none"]).default("auto")),
    "`auto` (Docker, else bubblewrap, else refuse), `docker`, `bwrap` or `none`. Code never runs unsandboxed."),
  DOCKER_HOST: declare("Sandbox", opt(z.string().min(1)),
    "Run sandboxes on a remote Docker engine (e.g. `tcp://sandbox-host:2376` or `ssh://…`); it needs the `countersign-sandbox` image (`npm run sandbox:image` there). Read by the Docker client."),
  SANDBOX_IMAGE: declare("Sandbox", opt(z.string().min(1)), "The sandbox image's tag; runs pin it by id.", { shownDefault: "`countersign-sandbox:latest`" }),
  SANDBOX_MEMORY_MB: declare("Sandbox", opt(int(16, 65_536)), "Memory per run (part of the approved hash).", { shownDefault: "256" }),
  SANDBOX_CPU_MILLIS: declare("Sandbox", opt(int(10, 64_000)), "CPU per run in thousandths of a core (part of the approved hash).", { shownDefault: "1000" }),
  SANDBOX_PIDS_LIMIT: declare("Sandbox", opt(int(8, 4096)), "Processes per run (part of the approved hash).", { shownDefault: "64" }),
  SANDBOX_TIMEOUT_MS: declare("Sandbox", opt(int(100, 3_600_000)), "Wall-clock limit per run (part of the approved hash).", { shownDefault: "10000" }),
  SANDBOX_OUTPUT_LIMIT: declare("Sandbox", opt(int(100, 10_000_000)), "Characters of output kept per run, then marked truncated (part of the approved hash).", { shownDefault: "10000" }),
  SANDBOX_TMPFS_MB: declare("Sandbox", opt(int(1, 4096)), "Size of the run's /tmp, its only sizeable writable space (/dev/shm is 1 MB) (part of the approved hash).", { shownDefault: "64" }),
  SANDBOX_FILE_SIZE_MB: declare("Sandbox", opt(int(1, 4096)), "Largest file a run may write (part of the approved hash).", { shownDefault: "16" }),
  SANDBOX_OPEN_FILES: declare("Sandbox", opt(int(16, 65_536)), "Open files per run (part of the approved hash).", { shownDefault: "64" }),
  SANDBOX_DATASET_MAX_MB: declare("Sandbox", opt(int(1, 1024)), "Largest total size of the data sets one code run may name (mounted read-only at /mnt/data).", { shownDefault: "8" }),
  SANDBOX_ARTIFACT_MAX_COUNT: declare("Sandbox", opt(int(1, 256)), "Most files a run may leave in /mnt/out to come back as artifacts; more and none are kept.", { shownDefault: "16" }),
  SANDBOX_ARTIFACT_MAX_MB: declare("Sandbox", opt(int(1, 1024)), "Largest total size of a run's artifacts (/mnt/out); more and none are kept.", { shownDefault: "8" }),
  SANDBOX_CONCURRENCY: declare("Sandbox", opt(int(1, 64)), "Runs at once per process; more wait their turn.", { shownDefault: "2" }),
  SANDBOX_POOL_SIZE: declare("Sandbox", opt(int(0, 32)), "Docker containers kept created and started ahead of need (each serves one run, then is destroyed; idle ones are removed after 5 minutes); 0 turns the warm pool off.", { shownDefault: "2" }),
  SANDBOX_RUNTIME: declare("Sandbox", z.preprocess((raw) => (typeof raw === "string" ? raw.trim().toLowerCase() || undefined : raw), z.enum(["runc", "runsc"]).default("runc")),
    "`runsc`: every Docker run uses gVisor (isolation `gvisor`); when gVisor cannot run, code is refused rather than run under `container`. `runc`: plain containers, with gVisor only where a policy rule says `sandbox: \"gvisor\"`."),
  TREE_SITTER_WASM_DIR: declare("Sandbox", opt(z.string().min(1)), "Where the pre-scan's tree-sitter WebAssembly files are.", { shownDefault: "the `@vscode/tree-sitter-wasm` package" }),
  XDG_CACHE_HOME: declare("Sandbox", opt(z.string()),
    "Where a console not run as root extracts the sandbox image's root filesystem for bubblewrap (under `countersign/sandbox-rootfs`); as the XDG rules say, a relative path is ignored.",
    { shownDefault: "`~/.cache`" }),

  // Email
  SMTP_URL: declare("Email", opt(z.string().regex(/^smtps?:\/\//, "an smtp:// or smtps:// URL")),
    "Deliver `send_email` through SMTP (otherwise the outbox table is the effect), e.g. `smtp://user:pass@mail.example:587`.", { secret: true }),
  SMTP_FROM: declare("Email", opt(z.string().min(3)), "The sender of those emails, and of reviewer emails.", { shownDefault: "`countersign@localhost`" }),
  REVIEWER_EMAIL_DIGEST_MINUTES: declare("Email", opt(int(1, 10_080)),
    "Reviewer emails: the period of a digest (members who chose digest on /account get one email per period listing the actions still waiting for them). Periods are aligned to the clock, e.g. on the hour.", { shownDefault: "60" }),
  REVIEWER_EMAIL_RETRY_BASE_MS: declare("Email", opt(int(10, 3_600_000)),
    "Reviewer emails: the first retry's delay after the SMTP server refused or could not be reached; each later one doubles (up to an hour), with ±50 % jitter.", { shownDefault: "5000" }),
  REVIEWER_EMAIL_RETRY_WINDOW_MINUTES: declare("Email", opt(int(1, 10_080)), "Reviewer emails: how long one is retried before it is marked failed.", { shownDefault: "1440" }),
  REVIEWER_EMAIL_TIMEOUT_MS: declare("Email", opt(int(100, 120_000)), "Reviewer emails: how long connecting to and talking with the SMTP server may take per attempt.", { shownDefault: "15000" }),

  // Agents and workers
  COUNTERSIGN_API_RATE_LIMIT: declare("Agents and workers", opt(int(1, 1_000_000)), "Agent-API requests per key per window.", { shownDefault: "120" }),
  COUNTERSIGN_API_RATE_WINDOW_SECONDS: declare("Agents and workers", opt(int(1, 86_400)), "That window.", { shownDefault: "60" }),
  COUNTERSIGN_MAX_REVIEW_CYCLES: declare("Agents and workers", opt(int(1, 100)), "Review cycles after which a task's run stops.", { shownDefault: "5" }),
  COUNTERSIGN_MAX_MODEL_TURNS: declare("Agents and workers", opt(int(1, 1000)), "Model turns after which a task's run stops.", { shownDefault: "20" }),
  COUNTERSIGN_TASK_LEASE_MS: declare("Agents and workers", opt(int(100, 3_600_000)), "How long a worker holds a task before another may take it over.", { shownDefault: "60000" }),
  COUNTERSIGN_WORKER_POLL_MS: declare("Agents and workers", opt(int(5, 60_000)), "How often an idle worker looks for runnable tasks.", { shownDefault: "1000" }),
  COUNTERSIGN_EXECUTION_LEASE_MS: declare("Agents and workers", opt(int(1, 3_600_000)),
    "How long a sandbox run or SMTP delivery may go without renewing its lease (renewed at a third of it) before recovery records it unknown.", { shownDefault: "60000" }),
  COUNTERSIGN_COMPUTE_THREADS: declare("Agents and workers", opt(int(1, 64)),
    "Worker threads per process for the work that grows with the input (code pre-scan, risk tags, payload hashing).", { shownDefault: "cores − 1, at least 2, at most 4" }),
  COUNTERSIGN_COMPUTE_BUDGET_MS: declare("Agents and workers", opt(int(1, 60_000)),
    "CPU time one payload's checks may use before they are refused as `too_complex` (time spent queued or on other work does not count; never more than ten times it on the clock).", { shownDefault: "2000" }),

  // Upstream MCP servers
  MCP_STDIO_COMMANDS: declare("Upstream MCP servers", opt(absolutePaths),
    "The commands admins may register as stdio MCP servers, which run on the console's host as its user: absolute paths, comma-separated (e.g. `/usr/local/bin/mcp-server-git`). List servers, not interpreters: an interpreter (node, python) with the arguments an admin chooses runs any code. Unset, only HTTP servers can be registered.", { shownDefault: "none" }),
  MCP_PRIVATE_HOSTS: declare("Upstream MCP servers", opt(hostNames),
    "Hosts an HTTP MCP server may be at although they resolve to loopback, private or link-local addresses, as written in its URL, comma-separated (e.g. `localhost,mcp.internal,10.0.0.5`). Any other server must resolve to public addresses only, checked at every connection, which goes to the address checked (an admin cannot point the console at its own network or a cloud metadata service).", { shownDefault: "none" }),
  MCP_UPSTREAM_TIMEOUT_MS: declare("Upstream MCP servers", opt(int(100, 3_600_000)),
    "How long connecting to an upstream MCP server, listing its tools or one forwarded call may take. A call that times out is recorded `unknown` (it may have happened) and never retried.", { shownDefault: "60000" }),
  MCP_UPSTREAM_MAX_BYTES: declare("Upstream MCP servers", opt(int(65_536, 1_073_741_824)),
    "The most an upstream MCP server may send in one message, and in its whole tool list: a listing past it is refused and changes nothing; a forwarded call whose answer is past it is recorded `unknown` (the server may have acted).", { shownDefault: "2097152 (2 MiB)" }),

  // Webhooks
  WEBHOOK_PRIVATE_HOSTS: declare("Webhooks", opt(hostNames),
    "Hosts a webhook may go to although they resolve to loopback, private or link-local addresses, as written in its URL, comma-separated (e.g. `hooks.internal,10.0.0.7`); an admin must still allow a private host for each endpoint. Any other endpoint must resolve to public addresses only, checked at every delivery, which goes to the address checked.", { shownDefault: "none" }),
  WEBHOOK_TIMEOUT_MS: declare("Webhooks", opt(int(100, 120_000)), "How long one delivery may take before it counts as failed.", { shownDefault: "10000" }),
  WEBHOOK_RETRY_BASE_MS: declare("Webhooks", opt(int(10, 3_600_000)),
    "The first retry's delay; each later one doubles (up to an hour), with ±50 % jitter.", { shownDefault: "5000" }),
  WEBHOOK_RETRY_WINDOW_MINUTES: declare("Webhooks", opt(int(1, 10_080)), "How long a delivery is retried before it is marked failed.", { shownDefault: "1440" }),

  // Slack
  SLACK_API_URL: declare("Slack", opt(url),
    "The Slack Web API base URL messages are posted and updated through (tests point it at a local fake).", { shownDefault: "`https://slack.com/api/`" }),
  SLACK_TIMEOUT_MS: declare("Slack", opt(int(100, 120_000)), "How long one call to Slack's Web API may take before it counts as failed.", { shownDefault: "10000" }),
  SLACK_RETRY_BASE_MS: declare("Slack", opt(int(10, 3_600_000)),
    "Slack messages and notices: the first retry's delay; each later one doubles (up to an hour), with ±50 % jitter.", { shownDefault: "5000" }),
  SLACK_RETRY_WINDOW_MINUTES: declare("Slack", opt(int(1, 10_080)), "How long a Slack message or notice is retried before it is marked failed (and listed on Admin → Slack).", { shownDefault: "1440" }),

  // Tests (the test harness; not configuration of the console)
  TEST_DATABASE_URL: declare("Tests", opt(z.string().regex(/^postgres(ql)?:\/\//)), "Run Vitest against this PostgreSQL server instead of a bundled one.", { secret: true }),
  COUNTERSIGN_TEST_PG: declare("Tests", opt(z.string()), "Set by Vitest's global set-up: the cluster test files clone their databases on.", { secret: true }),
  COUNTERSIGN_TEST_PG_APP: declare("Tests", opt(z.string()), "Set by Vitest's global set-up: that cluster as the app role, which test files connect as.", { secret: true }),
  E2E_PORT: declare("Tests", opt(int(1, 65_535)), "The port of Playwright's console.", { shownDefault: "3917" }),
  E2E_RUNTIME_FILE: declare("Tests", opt(z.string()), "Where Playwright's server says how to reach its database.", { shownDefault: "`e2e/.runtime.json`" }),
  CHROMIUM_PATH: declare("Tests", opt(z.string()), "The Chromium Playwright drives.", { shownDefault: "`/usr/bin/chromium-headless-shell`, else `/usr/bin/chromium`" }),
  SANDBOX_TESTS: declare("Tests", opt(z.enum(["skip-docker"])), "`skip-docker`: the sandbox tests do not require Docker here (by default they fail when it is missing)."),
} as const;

export type EnvName = keyof typeof ENVIRONMENT;
export type EnvValue<K extends EnvName> = z.output<(typeof ENVIRONMENT)[K]["schema"]>;

function problemOf(name: string, raw: string | undefined, error: z.ZodError): string {
  const shown = (ENVIRONMENT as Record<string, Declaration>)[name]?.secret ? "(value hidden)" : JSON.stringify(raw);
  return `${name}=${shown} is not valid: ${error.issues.map((issue) => issue.message).join("; ")}. Fix or unset it.`;
}

/** One variable as parsed: its text, and its value or the one-line problem with it. */
type Parsed = { readonly raw: string | undefined } & ({ readonly value: unknown } | { readonly problem: string });
type ParsedEnvironment = Readonly<Record<EnvName, Parsed>>;

const NAMES = Object.keys(ENVIRONMENT) as EnvName[];

function parse(name: EnvName, raw: string | undefined): Parsed {
  const parsed = ENVIRONMENT[name].schema.safeParse(raw);
  return Object.freeze(parsed.success ? { raw, value: parsed.data } : { raw, problem: problemOf(name, raw, parsed.error) });
}

// The process's environment, parsed once into a frozen object on first use (start-up checks it).
// A variable whose text differs from the one parsed — only a test's vi.stubEnv changes it — is
// parsed again into a new object: one string comparison per read instead of a zod parse.
let parsedEnvironment: ParsedEnvironment | undefined;

function fromProcess(name: EnvName): Parsed {
  parsedEnvironment ??= Object.freeze(Object.fromEntries(NAMES.map((n) => [n, parse(n, process.env[n])])) as Record<EnvName, Parsed>);
  const raw = process.env[name];
  if (parsedEnvironment[name].raw !== raw) parsedEnvironment = Object.freeze({ ...parsedEnvironment, [name]: parse(name, raw) });
  return parsedEnvironment[name];
}

function parsedFrom(name: EnvName, source: EnvSource | undefined): Parsed {
  return source === undefined || source === process.env ? fromProcess(name) : parse(name, source[name]);
}

/** One variable, checked against its declaration (absent → its default). Throws EnvError in one line. */
export function readEnv<K extends EnvName>(name: K, source?: EnvSource): EnvValue<K> {
  const parsed = parsedFrom(name, source);
  if ("problem" in parsed) throw new EnvError(parsed.problem);
  return parsed.value as EnvValue<K>;
}

/** A variable's text as set (for a cache that must start afresh when it changes), not its value. */
export function envText(name: EnvName): string | undefined {
  return fromProcess(name).raw;
}

/** Every declared variable checked at once: one line per problem (start-up prints them and stops). */
export function environmentProblems(source?: EnvSource): string[] {
  return NAMES.flatMap((name) => {
    const parsed = parsedFrom(name, source);
    return "problem" in parsed ? [parsed.problem] : [];
  });
}

/** The README's configuration table, generated from the declarations (sections in order, tests left out). */
export function configurationTable(): string {
  const rows = (Object.entries(ENVIRONMENT) as Array<[string, Declaration]>)
    .filter(([, d]) => d.section !== "Tests")
    .map(([name, d]) => `| ${d.section} | \`${name}\` | ${d.description}${d.shownDefault ? ` Default: ${d.shownDefault}.` : ""} |`);
  return ["| area | variable | meaning |", "|---|---|---|", ...rows].join("\n");
}
