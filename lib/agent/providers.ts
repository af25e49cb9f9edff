import OpenAI from "openai";
import { z } from "zod";
import { InvalidPayloadError } from "@/lib/canonical/invalid-payload-error";
import { parseStrictJson } from "@/lib/canonical/parse-strict-json";
import type { ChatModel, ModelInput, ModelTurn } from "@/lib/agent/model";
import { offlinePlanner } from "@/lib/agent/offline-planner";
import { EnvError, processEnv, readEnv, type EnvSource } from "@/lib/env";

/**
 * One OpenAI-compatible endpoint. The key is held as a non-enumerable property, so logging or
 * serialising a provider (console.log, JSON.stringify, an error's details) never shows it.
 */
export type Provider = { readonly name: string; readonly baseURL: string; readonly model: string; readonly apiKey: string };

/** One entry of LLM_PROVIDERS. Prefer `apiKeyEnv` (the name of the variable holding the key) over an inline `apiKey`. */
export const ProviderEntrySchema = z.strictObject({
  name: z.string().trim().regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/, "a short name such as openai or groq-backup"),
  baseURL: z.url({ protocol: /^https?$/ }),
  model: z.string().trim().min(1).max(200),
  apiKeyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name").optional(),
  apiKey: z.string().min(1).optional(),
});
export const ProvidersConfigSchema = z.array(ProviderEntrySchema).min(1).max(10);

export const DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1";
export const DEFAULT_OPENAI_MODEL = "gpt-4.1-mini";
/** Sent when a provider needs no key (a local server); the openai client insists on one. */
const NO_KEY = "no-key";

/** A configuration mistake, with a message safe to print (it never contains a key). */
export class ProviderConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ProviderConfigError";
  }
}

export function makeProvider(entry: { name: string; baseURL: string; model: string; apiKey?: string }): Provider {
  const provider = { name: entry.name, baseURL: entry.baseURL.replace(/(?<!\/)\/+$/, ""), model: entry.model } as Provider;
  Object.defineProperty(provider, "apiKey", { value: entry.apiKey ?? NO_KEY, enumerable: false });
  return Object.freeze(provider);
}

type Env = EnvSource;

/**
 * The ordered providers from `LLM_PROVIDERS` (a JSON array of `{ name, baseURL, model, apiKeyEnv?,
 * apiKey? }`), else `OPENAI_API_KEY` (+ `OPENAI_BASE_URL`, `OPENAI_MODEL`) as "openai", else [].
 * LLM_PROVIDERS is the whole list: no vendor it does not name is ever called.
 */
export function loadProvidersFromEnv(env: Env = processEnv()): Provider[] {
  const raw = env.LLM_PROVIDERS?.trim();
  if (raw) {
    let json: unknown;
    try {
      json = parseStrictJson(raw);
    } catch (error) {
      // parseStrictJson's messages name a position, never the text (which may hold a key).
      const detail = error instanceof InvalidPayloadError ? error.message : "it could not be read";
      throw new ProviderConfigError(`LLM_PROVIDERS is not valid JSON: ${detail}`);
    }
    const parsed = ProvidersConfigSchema.safeParse(json);
    if (!parsed.success) {
      // Issue messages and paths only: zod never puts the input value in them, so no key leaks.
      const issues = parsed.error.issues.map((i) => `${i.path.length ? `[${i.path.map(String).join("].")}` : "(list)"}: ${i.message}`);
      throw new ProviderConfigError(`LLM_PROVIDERS is invalid (a JSON array of {name, baseURL, model, apiKeyEnv?}): ${issues.join("; ")}`);
    }
    const names = new Set<string>();
    return parsed.data.map((entry) => {
      if (names.has(entry.name)) throw new ProviderConfigError(`LLM_PROVIDERS names the provider "${entry.name}" twice.`);
      names.add(entry.name);
      if (entry.apiKeyEnv && entry.apiKey) {
        throw new ProviderConfigError(`LLM_PROVIDERS entry "${entry.name}" has both apiKeyEnv and apiKey; keep only apiKeyEnv.`);
      }
      let apiKey = entry.apiKey;
      if (entry.apiKeyEnv) {
        apiKey = env[entry.apiKeyEnv];
        if (!apiKey) throw new ProviderConfigError(`LLM_PROVIDERS entry "${entry.name}" reads its key from ${entry.apiKeyEnv}, which is not set.`);
      }
      return makeProvider({ ...entry, apiKey });
    });
  }
  const key = env.OPENAI_API_KEY?.trim();
  if (key) {
    const baseURL = env.OPENAI_BASE_URL?.trim() || DEFAULT_OPENAI_BASE_URL;
    if (!z.url({ protocol: /^https?$/ }).safeParse(baseURL).success) {
      throw new ProviderConfigError("OPENAI_BASE_URL must be an http(s) URL.");
    }
    return [makeProvider({ name: "openai", baseURL, model: env.OPENAI_MODEL?.trim() || DEFAULT_OPENAI_MODEL, apiKey: key })];
  }
  return [];
}

export type ProviderModelOptions = {
  /** Per request. Default 30 s. */
  timeoutMs?: number;
  /** Retries per provider after the first attempt. Default 2 (so at most 3 requests per provider). */
  maxRetries?: number;
  /** Base of the exponential backoff. Default 500 ms. */
  backoffMs?: number;
  /** Longest backoff between two attempts, and the longest Retry-After honoured. Default 20 s. */
  maxBackoffMs?: number;
  /** Injectable for tests. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Injectable for tests: a number in [0, 1). */
  random?: () => number;
};

export type ProviderAttemptFailure = {
  provider: string;
  /** Safe to show: never contains a key. */
  error: string;
  status?: number;
  attempts: number;
};

/** Every provider failed (after its retries). The message lists each one's last error, never a key. */
export class AllProvidersFailedError extends Error {
  constructor(readonly failures: ProviderAttemptFailure[]) {
    super(
      failures.length === 0
        ? "No LLM provider is configured."
        : `All ${failures.length} LLM provider(s) failed: ` +
            failures.map((f) => `${f.provider}: ${f.error} (${f.attempts} attempt${f.attempts === 1 ? "" : "s"})`).join("; "),
    );
    this.name = "AllProvidersFailedError";
  }
}

/** How to treat one failed request. */
type Verdict = { action: "retry" | "failover"; message: string; status?: number; retryAfterMs?: number };

const defaultSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });

/** Retry-After (seconds or an HTTP date) or retry-after-ms, in ms; undefined when absent or unreadable. */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  const ms = headers?.get("retry-after-ms");
  if (ms && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const value = headers?.get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+(?:\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function connectionCode(error: unknown): string | undefined {
  // fetch wraps the socket error: TypeError("fetch failed", { cause: Error { code: "ECONNREFUSED" } }).
  let current: unknown = error;
  for (let i = 0; i < 4 && current && typeof current === "object"; i++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && /^(?:E[A-Z]+|UND_ERR_[A-Z_]+)$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function classify(error: unknown, timeoutMs: number): Verdict {
  if (error instanceof OpenAI.APIConnectionTimeoutError) return { action: "retry", message: `timed out after ${timeoutMs} ms` };
  if (error instanceof OpenAI.APIConnectionError) {
    const code = connectionCode(error.cause);
    return { action: "retry", message: `connection failed${code ? ` (${code})` : ""}` };
  }
  if (error instanceof OpenAI.APIError && typeof error.status === "number") {
    const status = error.status;
    const detail = error.message.replace(/\s+/g, " ").slice(0, 200);
    const message = `HTTP ${status}${detail ? `: ${detail}` : ""}`;
    if (status === 429) return { action: "retry", message, status, retryAfterMs: retryAfterMs(error.headers) };
    if (status >= 500 || status === 408 || status === 409) return { action: "retry", message, status, retryAfterMs: retryAfterMs(error.headers) };
    // Any other 4xx (bad request, bad key, unknown model, content refused) will not change on a
    // retry to the same vendor, but the next vendor has its own key, model and validation: fail
    // over at once rather than stall the run.
    return { action: "failover", message, status };
  }
  if (error instanceof MalformedResponseError) return { action: "failover", message: error.message };
  const message = error instanceof Error ? error.message : String(error);
  return { action: "failover", message: `unexpected error: ${message.slice(0, 200)}` };
}

class MalformedResponseError extends Error {}

function redact(text: string, providers: readonly Provider[]): string {
  let out = text;
  for (const p of providers) {
    if (p.apiKey && p.apiKey !== NO_KEY && p.apiKey.length >= 4) out = out.split(p.apiKey).join("[redacted]");
  }
  // Credentials in a URL (https://user:pass@host) never appear either.
  return out.replace(/(\bhttps?:\/\/)[^\s/@]+@/gi, "$1[redacted]@");
}

function toTurn(provider: Provider, completion: OpenAI.Chat.ChatCompletion): ModelTurn {
  const choice = completion.choices?.[0];
  if (!choice?.message) throw new MalformedResponseError("the response has no choices");
  const seen = new Set<string>();
  const toolCalls = (choice.message.tool_calls ?? []).flatMap((call, index) => {
    if (call.type !== "function" || !call.function) return [];
    // Tool results are matched to calls by id: a missing or repeated id would cross them.
    let id = typeof call.id === "string" && call.id.trim() !== "" ? call.id : `call_${index}`;
    while (seen.has(id)) id = `${id}_${index}`;
    seen.add(id);
    return [{ id, name: call.function.name, argumentsText: call.function.arguments ?? "" }];
  });
  return { provider: provider.name, model: completion.model || provider.model, content: choice.message.content ?? null, toolCalls };
}

/**
 * A ChatModel over ordered providers: each gets 1 + maxRetries attempts with jittered backoff on
 * 429 (Retry-After up to maxBackoffMs), 408/409, 5xx, timeouts and connection failures; other 4xx
 * fail over at once. AllProvidersFailedError lists each last error. Keys never reach messages or logs.
 */
export function createProviderModel(providers: readonly Provider[], opts: ProviderModelOptions = {}): ChatModel {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const maxRetries = Math.max(0, opts.maxRetries ?? 2);
  const backoffMs = opts.backoffMs ?? 500;
  const maxBackoffMs = opts.maxBackoffMs ?? 20_000;
  const sleep = opts.sleep ?? defaultSleep;
  const random = opts.random ?? Math.random;
  const clients = providers.map(
    (p) => new OpenAI({ baseURL: p.baseURL, apiKey: p.apiKey, timeout: timeoutMs, maxRetries: 0, logLevel: "off" }),
  );

  async function complete(input: ModelInput): Promise<ModelTurn> {
    const failures: ProviderAttemptFailure[] = [];
    for (const [index, provider] of providers.entries()) {
      let attempts = 0;
      let last: Verdict | undefined;
      while (attempts <= maxRetries) {
        attempts++;
        try {
          const completion = await clients[index].chat.completions.create(
            {
              model: provider.model,
              messages: input.messages,
              // An empty tools array is a 400 at some vendors.
              ...(input.tools.length > 0 ? { tools: input.tools } : {}),
            },
            { signal: input.signal },
          );
          return toTurn(provider, completion);
        } catch (error) {
          // The caller gave up: neither retry nor fail over.
          if (input.signal?.aborted || error instanceof OpenAI.APIUserAbortError) throw error;
          last = classify(error, timeoutMs);
          if (last.action === "failover" || attempts > maxRetries) break;
          const exponential = Math.min(maxBackoffMs, backoffMs * 2 ** (attempts - 1));
          if (last.retryAfterMs !== undefined && last.retryAfterMs > maxBackoffMs) {
            // The vendor asks for a longer pause than we will make a run wait: try the next one.
            last = { ...last, message: `${last.message} (Retry-After ${Math.ceil(last.retryAfterMs / 1000)} s exceeds the wait limit)` };
            break;
          }
          // Equal jitter: half fixed, half random, so parallel runs do not retry in lockstep.
          const jittered = exponential / 2 + (random() * exponential) / 2;
          await sleep(Math.max(last.retryAfterMs ?? 0, jittered), input.signal);
        }
      }
      failures.push({
        provider: provider.name,
        error: redact(last?.message ?? "failed", providers),
        ...(last?.status !== undefined ? { status: last.status } : {}),
        attempts,
      });
    }
    throw new AllProvidersFailedError(failures);
  }

  return { id: providers.map((p) => p.name).join(","), complete };
}

/** The provider chain when the environment configures one, else the offline planner. */
export function configuredModel(env: Env = processEnv(), opts: ProviderModelOptions = {}): ChatModel {
  const providers = loadProvidersFromEnv(env);
  if (providers.length === 0) return offlinePlanner;
  const timeoutMs = providerSetting("LLM_TIMEOUT_MS", env);
  const maxRetries = providerSetting("LLM_MAX_RETRIES", env);
  return createProviderModel(providers, {
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(maxRetries !== undefined ? { maxRetries } : {}),
    ...opts,
  });
}

function providerSetting(name: "LLM_TIMEOUT_MS" | "LLM_MAX_RETRIES", env: Env): number | undefined {
  try {
    return readEnv(name, env);
  } catch (error) {
    if (error instanceof EnvError) throw new ProviderConfigError(error.message);
    throw error;
  }
}
