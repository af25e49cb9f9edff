import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { setUpTestDatabase, setUpTestTenant } from "@/tests/fixtures";
import { refusedDestinations } from "@/lib/server/warn-refused-destinations";

const t = setUpTestDatabase();
const a = setUpTestTenant(t);

beforeAll(async () => {
  // As a console before the operator's host lists stored them: a loopback MCP server and a webhook
  // whose admin allowed its private host.
  await t.db.mcpServer.create({
    data: { tenantId: a.id, name: "internal", transport: "http", url: "http://127.0.0.1:9/mcp?token=sekret", args: [], secretNames: [], sealedSecrets: "" },
  });
  await t.db.webhookEndpoint.create({
    data: { tenantId: a.id, url: "http://127.0.0.1:9/hooks?sig=sekret", events: ["action.pending"], allowPrivate: true, secrets: "" },
  });
});
afterEach(() => vi.unstubAllEnvs());

describe("the stored destinations the host rules refuse, said at start", () => {
  it("names each MCP server and webhook at a host the operator has not listed, with what to set, and never the URL's query", async () => {
    vi.stubEnv("MCP_PRIVATE_HOSTS", "");
    vi.stubEnv("WEBHOOK_PRIVATE_HOSTS", "");
    const lines = (await refusedDestinations(t.db)).filter((line) => line.includes(a.slug));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^MCP server internal of ${a.slug} \\(127\\.0\\.0\\.1:9\\) is refused now: .*MCP_PRIVATE_HOSTS`));
    expect(lines[1]).toMatch(new RegExp(`^Webhook endpoint .* of ${a.slug} \\(127\\.0\\.0\\.1:9\\) is refused now: .*WEBHOOK_PRIVATE_HOSTS`));
    expect(lines.join(" ")).not.toContain("sekret");

    vi.stubEnv("MCP_PRIVATE_HOSTS", "127.0.0.1");
    vi.stubEnv("WEBHOOK_PRIVATE_HOSTS", "127.0.0.1");
    expect((await refusedDestinations(t.db)).filter((line) => line.includes(a.slug))).toEqual([]);
  });
});
