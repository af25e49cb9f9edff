import { randomBytes } from "node:crypto";
import { expect, type APIResponse } from "@playwright/test";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { decideAction } from "@/lib/approvals/decide-action";
import { seedTenant, type TestTenant } from "@/e2e/support/factories";
import { e2eDb } from "@/e2e/support/runtime";

export const ALL_TOOLS = ["lookup_customer", "get_invoice", "get_dataset", "send_email", "cancel_invoice", "refund_invoice", "run_python"];

export type Agent = { tenant: TestTenant; keyId: string; secret: string; name: string; headers: Record<string, string> };

/** A tenant of its own with an API key for the given tools (created as the tenant's admin). */
export async function seedAgent(allowedTools: string[] = ALL_TOOLS, tenant?: TestTenant): Promise<Agent> {
  const owner = tenant ?? (await seedTenant());
  const name = `agent-${randomBytes(3).toString("hex")}`;
  const { apiKey, secret } = await createApiKey(e2eDb(), { tenantId: owner.id, name, allowedTools, createdById: owner.users.admin.id });
  return { tenant: owner, keyId: apiKey.id, secret, name, headers: { Authorization: `Bearer ${secret}` } };
}

/** A reviewer's vote, through the approval core (as the console's server action does). */
export async function decide(agent: Agent, actionId: string, payloadHash: string, verdict: "approve" | "reject", note?: string) {
  return decideAction(e2eDb(), {
    tenantId: agent.tenant.id, actionId, payloadHash, verdict, note,
    reviewer: agent.tenant.users.reviewer.member,
  });
}

export async function expectError(response: APIResponse, status: number, code: string | RegExp) {
  expect(response.status(), await response.text()).toBe(status);
  const body = (await response.json()) as { error: { code: string; message: string } };
  if (typeof code === "string") expect(body.error.code).toBe(code);
  else expect(body.error.code).toMatch(code);
  expect(body.error.message.length).toBeGreaterThan(0);
  return body.error;
}

export function actionCount(tenantId: string) {
  return e2eDb().action.count({ where: { tenantId } });
}

/** Parses an NDJSON body into its events. */
export function ndjson(text: string): Array<Record<string, unknown>> {
  return text.split("\n").filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
}

export const CODE = 'import json\nrows = [{"bucket": "logs-2019", "days": 900}, {"bucket": "www", "days": 2}]\nfor r in rows:\n    if r["days"] > 365:\n        print("stale:", r["bucket"])\nprint(json.dumps({"checked": len(rows)}))\n';
