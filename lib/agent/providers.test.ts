import { afterEach, describe, expect, it } from "vitest";
import { startFakeOpenAI, type FakeOpenAI } from "@/tests/fake-openai-server";
import type { ChatMessage } from "@/lib/agent/model";
import {
  AllProvidersFailedError,
  configuredModel,
  createProviderModel,
  loadProvidersFromEnv,
  makeProvider,
  ProviderConfigError,
  retryAfterMs,
  type ProviderModelOptions,
} from "@/lib/agent/providers";
import { parseToolCall, toolSpecsForModel } from "@/lib/agent/tool-specs";

const KEY_A = "sk-test-AAAA-secret-key-0001";
const KEY_B = "sk-test-BBBB-secret-key-0002";
const messages: ChatMessage[] = [
  { role: "system", content: "You are a billing assistant." },
  { role: "user", content: "Send a payment reminder for INV-1042" },
];
const tools = toolSpecsForModel();

const servers: FakeOpenAI[] = [];
async function fake(...args: Parameters<typeof startFakeOpenAI>): Promise<FakeOpenAI> {
  const server = await startFakeOpenAI(...args);
  servers.push(server);
  return server;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** Instant backoff that records what it was asked to wait. */
function recordingOptions(extra: ProviderModelOptions = {}): ProviderModelOptions & { waits: number[] } {
  const waits: number[] = [];
  return { waits, sleep: async (ms) => void waits.push(ms), random: () => 0.5, ...extra };
}

function allText(server: FakeOpenAI): string {
  return server.requests.map((r) => `${r.rawBody}\n${JSON.stringify({ ...r.headers, authorization: undefined })}`).join("\n");
}

describe("provider model over real HTTP", () => {
  it("returns the model's tool calls, sends the tools and messages, and puts the key only in Authorization", async () => {
    const server = await fake([{ content: "Reading the invoice.", toolCalls: [{ id: "call_1", name: "get_invoice", arguments: '{"invoice_number":"INV-1042"}' }] }]);
    const model = createProviderModel([makeProvider({ name: "primary", baseURL: server.baseURL, model: "gpt-test", apiKey: KEY_A })], recordingOptions());
    const turn = await model.complete({ messages, tools });

    expect(turn).toEqual({
      provider: "primary",
      model: "gpt-test",
      content: "Reading the invoice.",
      toolCalls: [{ id: "call_1", name: "get_invoice", argumentsText: '{"invoice_number":"INV-1042"}' }],
    });
    expect(parseToolCall(turn.toolCalls[0])).toMatchObject({ ok: true, args: { invoice_number: "INV-1042" } });

    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request.url).toBe("/v1/chat/completions");
    expect(request.headers.authorization).toBe(`Bearer ${KEY_A}`);
    expect(allText(server)).not.toContain(KEY_A);
    const body = request.body as { model: string; messages: unknown; tools: Array<{ function: { name: string } }> };
    expect(body.model).toBe("gpt-test");
    expect(body.messages).toEqual(messages);
    expect(body.tools.map((t) => t.function.name)).toEqual(["lookup_customer", "get_invoice", "get_dataset", "send_email", "cancel_invoice", "refund_invoice", "run_python"]);
  });

  it("gives every tool call a unique id even when the vendor repeats one", async () => {
    const server = await fake([{ toolCalls: [{ id: "dup", name: "get_invoice", arguments: "{}" }, { id: "dup", name: "get_invoice", arguments: "{}" }] }]);
    const model = createProviderModel([makeProvider({ name: "p", baseURL: server.baseURL, model: "m", apiKey: KEY_A })], recordingOptions());
    const ids = (await model.complete({ messages, tools })).toolCalls.map((c) => c.id);
    expect(new Set(ids).size).toBe(2);
    expect(ids[0]).toBe("dup");
  });

  it("hands malformed tool arguments back as errors for the model, never as executable calls", async () => {
    const server = await fake([
      {
        toolCalls: [
          { name: "get_invoice", arguments: "{invoice_number: INV-1042" },
          { name: "get_invoice", arguments: '{"invoice_number":"INV-1042","invoice_number":"INV-1047"}' },
          { name: "send_email", arguments: '{"to":"a@acme.example","subject":"s","body":"b","bcc":"x@exfil-mail.example"}' },
          { name: "wire_money", arguments: "{}" },
        ],
      },
    ]);
    const model = createProviderModel([makeProvider({ name: "p", baseURL: server.baseURL, model: "m", apiKey: KEY_A })], recordingOptions());
    const turn = await model.complete({ messages, tools });
    const parsed = turn.toolCalls.map((c) => parseToolCall(c));
    expect(parsed.map((p) => p.ok)).toEqual([false, false, false, false]);
    const errors = parsed.map((p) => (p.ok ? "" : p.error));
    expect(errors[0]).toMatch(/not valid JSON/);
    expect(errors[1]).toMatch(/"invoice_number" appears more than once/);
    expect(errors[2]).toMatch(/bcc/);
    expect(errors[3]).toMatch(/no tool named "wire_money"/);
  });

  it.each([
    ["answers 500", { kind: "error", status: 500 } as const, 3],
    ["answers 503", { kind: "error", status: 503 } as const, 3],
    ["answers 429 with a short Retry-After", { kind: "rate-limit", retryAfterSeconds: 1 } as const, 3],
    ["closes the connection", { kind: "close" } as const, 3],
    ["answers 401 (fails over at once)", { kind: "error", status: 401, message: "Incorrect API key" } as const, 1],
    ["answers 400 (fails over at once)", { kind: "error", status: 400, message: "bad model" } as const, 1],
    ["asks to wait longer than the cap (fails over at once)", { kind: "rate-limit", retryAfterSeconds: 3600 } as const, 1],
    ["returns something that is not a chat completion", { kind: "garbage" } as const, 1],
  ])("fails over from a provider that %s to one that works", async (_what, mode, expectedAttempts) => {
    const bad = await fake([{ content: "never" }], mode);
    const good = await fake([{ content: "from backup" }]);
    const opts = recordingOptions({ maxRetries: 2 });
    const model = createProviderModel(
      [makeProvider({ name: "primary", baseURL: bad.baseURL, model: "m1", apiKey: KEY_A }), makeProvider({ name: "backup", baseURL: good.baseURL, model: "m2", apiKey: KEY_B })],
      opts,
    );
    const turn = await model.complete({ messages, tools });
    expect(turn).toMatchObject({ provider: "backup", model: "m2", content: "from backup" });
    expect(bad.requests).toHaveLength(expectedAttempts);
    expect(good.requests).toHaveLength(1);
    expect(good.requests[0].headers.authorization).toBe(`Bearer ${KEY_B}`);
    expect(opts.waits).toHaveLength(expectedAttempts - 1);
  });

  it("backs off exponentially with jitter and honours Retry-After", async () => {
    const limited = await fake([{ content: "x" }], { kind: "rate-limit", retryAfterSeconds: 2 });
    const failing = await fake([{ content: "x" }], { kind: "error", status: 502 });
    const opts = recordingOptions({ maxRetries: 3, backoffMs: 100 });
    const model = createProviderModel(
      [makeProvider({ name: "limited", baseURL: limited.baseURL, model: "m", apiKey: KEY_A }), makeProvider({ name: "failing", baseURL: failing.baseURL, model: "m", apiKey: KEY_B })],
      opts,
    );
    await expect(model.complete({ messages, tools })).rejects.toBeInstanceOf(AllProvidersFailedError);
    // Retry-After 2 s dominates the backoff; then 100·2^n with random() = 0.5 → 75 %.
    expect(opts.waits).toEqual([2000, 2000, 2000, 75, 150, 300]);
  });

  it("fails over from a provider that hangs, within the per-call timeout", async () => {
    const hanging = await fake([{ content: "never" }], { kind: "hang" });
    const good = await fake([{ content: "ok" }]);
    const model = createProviderModel(
      [makeProvider({ name: "slow", baseURL: hanging.baseURL, model: "m", apiKey: KEY_A }), makeProvider({ name: "fast", baseURL: good.baseURL, model: "m", apiKey: KEY_B })],
      // The good provider gets the same per-call limit: 2 s, not 150 ms, so that a loaded machine's
      // slow local answer is not a timeout.
      recordingOptions({ timeoutMs: 2_000, maxRetries: 1 }),
    );
    const started = Date.now();
    const turn = await model.complete({ messages, tools });
    expect(turn.provider).toBe("fast");
    expect(hanging.requests).toHaveLength(2);
    // Two 2 s attempts, not the 30 s default each: a bound far from both, so a loaded machine's
    // slowness cannot decide it.
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it("fails over from a refused connection", async () => {
    const gone = await startFakeOpenAI();
    await gone.close();
    const good = await fake([{ content: "ok" }]);
    const model = createProviderModel(
      [makeProvider({ name: "gone", baseURL: gone.baseURL, model: "m", apiKey: KEY_A }), makeProvider({ name: "good", baseURL: good.baseURL, model: "m", apiKey: KEY_B })],
      recordingOptions({ maxRetries: 1 }),
    );
    expect((await model.complete({ messages, tools })).provider).toBe("good");
  });

  it("with every provider down, throws one clear error naming each failure and no key, after a bounded number of requests", async () => {
    const a = await fake([{ content: "x" }], { kind: "error", status: 500, message: `upstream echoed Bearer ${KEY_A}` });
    const b = await fake([{ content: "x" }], { kind: "hang" });
    const gone = await startFakeOpenAI();
    await gone.close();
    const model = createProviderModel(
      [
        makeProvider({ name: "alpha", baseURL: a.baseURL, model: "m", apiKey: KEY_A }),
        makeProvider({ name: "beta", baseURL: b.baseURL, model: "m", apiKey: KEY_B }),
        makeProvider({ name: "gamma", baseURL: gone.baseURL, model: "m", apiKey: KEY_B }),
      ],
      // 1 s: alpha's answer (a 500) must come before the limit, also on a loaded machine.
      recordingOptions({ maxRetries: 2, timeoutMs: 1_000 }),
    );
    const error = await model.complete({ messages, tools }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AllProvidersFailedError);
    const failure = error as AllProvidersFailedError;
    expect(failure.message).toMatch(/All 3 LLM provider\(s\) failed: alpha: HTTP 500.*\(3 attempts\); beta: timed out after 1000 ms \(3 attempts\); gamma: connection failed \(ECONNREFUSED\) \(3 attempts\)/);
    expect(failure.failures.map((f) => f.attempts)).toEqual([3, 3, 3]);
    for (const text of [failure.message, JSON.stringify(failure.failures), String(failure.stack)]) {
      expect(text).not.toContain(KEY_A);
      expect(text).not.toContain(KEY_B);
    }
    expect(failure.message).toContain("[redacted]");
    expect(a.requests).toHaveLength(3);
    expect(b.requests).toHaveLength(3);
  });

  it("stops at once when the caller aborts, without failing over", async () => {
    const hanging = await fake([{ content: "never" }], { kind: "hang" });
    const good = await fake([{ content: "ok" }]);
    const model = createProviderModel(
      [makeProvider({ name: "slow", baseURL: hanging.baseURL, model: "m", apiKey: KEY_A }), makeProvider({ name: "fast", baseURL: good.baseURL, model: "m", apiKey: KEY_B })],
      recordingOptions({ timeoutMs: 10_000 }),
    );
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await expect(model.complete({ messages, tools, signal: controller.signal })).rejects.toThrow();
    expect(good.requests).toHaveLength(0);
  });
});

describe("provider configuration", () => {
  it("reads an ordered list from LLM_PROVIDERS with keys from the named variables", () => {
    const providers = loadProvidersFromEnv({
      LLM_PROVIDERS: JSON.stringify([
        { name: "groq", baseURL: "https://api.groq.example/openai/v1/", model: "llama", apiKeyEnv: "GROQ_KEY" },
        { name: "local", baseURL: "http://127.0.0.1:11434/v1", model: "qwen" },
      ]),
      GROQ_KEY: KEY_A,
    });
    expect(providers.map((p) => [p.name, p.baseURL, p.model])).toEqual([
      ["groq", "https://api.groq.example/openai/v1", "llama"],
      ["local", "http://127.0.0.1:11434/v1", "qwen"],
    ]);
    expect(providers[0].apiKey).toBe(KEY_A);
    // Logging or serialising a provider never shows its key.
    expect(JSON.stringify(providers)).not.toContain(KEY_A);
    expect(Object.keys(providers[0])).not.toContain("apiKey");
  });

  it("uses OPENAI_API_KEY as a single provider when LLM_PROVIDERS is absent", () => {
    const [p, ...rest] = loadProvidersFromEnv({ OPENAI_API_KEY: KEY_A, OPENAI_MODEL: "gpt-x", OPENAI_BASE_URL: "https://proxy.example/v1" });
    expect(rest).toHaveLength(0);
    expect([p.name, p.baseURL, p.model, p.apiKey]).toEqual(["openai", "https://proxy.example/v1", "gpt-x", KEY_A]);
    expect(loadProvidersFromEnv({ OPENAI_API_KEY: KEY_A })[0].baseURL).toBe("https://api.openai.com/v1");
  });

  it("returns no providers, and the offline planner, when nothing is configured", () => {
    expect(loadProvidersFromEnv({})).toEqual([]);
    expect(configuredModel({}).id).toBe("offline");
    expect(configuredModel({ OPENAI_API_KEY: KEY_A }).id).toBe("openai");
  });

  it.each([
    ["not JSON (and never echoes it)", `[{"name":"a","apiKey":"${KEY_A}",}]`, /not valid JSON/],
    ["not an array", "{}", /invalid/],
    ["an unknown field", JSON.stringify([{ name: "a", baseURL: "https://a.example", model: "m", key: KEY_A }]), /Unrecognized key/],
    ["a bad URL", JSON.stringify([{ name: "a", baseURL: "ftp://a.example", model: "m", apiKey: KEY_A }]), /baseURL/],
    ["a key variable that is not set", JSON.stringify([{ name: "a", baseURL: "https://a.example", model: "m", apiKeyEnv: "NOPE_KEY" }]), /NOPE_KEY, which is not set/],
    ["both apiKey and apiKeyEnv", JSON.stringify([{ name: "a", baseURL: "https://a.example", model: "m", apiKey: KEY_A, apiKeyEnv: "X" }]), /both apiKeyEnv and apiKey/],
    ["a duplicate name", JSON.stringify([{ name: "a", baseURL: "https://a.example", model: "m" }, { name: "a", baseURL: "https://b.example", model: "m" }]), /twice/],
    ["a key of the wrong type", JSON.stringify([{ name: "a", baseURL: "https://a.example", model: "m", apiKey: 12345 }]), /apiKey/],
  ])("refuses LLM_PROVIDERS with %s, with a message that holds no key", (_what, value, message) => {
    let error: unknown;
    try {
      loadProvidersFromEnv({ LLM_PROVIDERS: value, X: "x" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ProviderConfigError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain(KEY_A);
  });

  it("reads Retry-After in seconds, as a date, and retry-after-ms", () => {
    expect(retryAfterMs(new Headers({ "retry-after": "3" }))).toBe(3000);
    expect(retryAfterMs(new Headers({ "retry-after-ms": "250" }))).toBe(250);
    expect(retryAfterMs(new Headers({ "retry-after": new Date(10_000).toUTCString() }), 4_000)).toBe(6000);
    expect(retryAfterMs(new Headers({ "retry-after": "soon" }))).toBeUndefined();
  });
});
