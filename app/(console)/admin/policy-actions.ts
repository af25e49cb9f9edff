"use server";

import { z } from "zod";
import { parseStrictJson } from "@/lib/canonical/parse-strict-json";
import { getDb } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { DRY_RUN_MAX, dryRunPolicy, type DryRunRow } from "@/lib/policy/dry-run-policy";
import { RISK_LEVELS } from "@/lib/policy/policy-document";
import { testPolicySample } from "@/lib/policy/test-policy-sample";
import type { PolicyTrace } from "@/lib/policy/trace-policy";
import { memberAction, type ActionResult } from "@/lib/server/boundary";

/** JSON an admin typed (the draft, a sample's arguments), parsed strictly. */
function parseJsonText(text: string, what: string): unknown {
  try {
    return parseStrictJson(text, { maxBytes: 256 * 1024, maxDepth: 32 });
  } catch (error) {
    const message = error instanceof Error ? error.message : "not valid JSON";
    throw new AppError("invalid_input", `The ${what} is not valid JSON: ${message}`, 400, { errors: [{ path: "(JSON)", message }] });
  }
}

const DraftText = z.string().max(300_000, "The policy is too long.");

const dryRun = memberAction(
  {
    name: "admin.dry_run_policy", permission: "admin:manage",
    input: z.strictObject({ text: DraftText, limit: z.number().int().min(1).max(DRY_RUN_MAX), actionId: z.uuid().optional() }),
  },
  async ({ text, limit, actionId }, member) => dryRunPolicy(getDb(), { tenantId: member.tenant.id, document: parseJsonText(text, "policy"), limit, actionId }),
);
export async function dryRunPolicyAction(raw: unknown): Promise<ActionResult<{ rows: DryRunRow[]; changed: number }>> {
  return dryRun(raw);
}

const testSample = memberAction(
  {
    name: "admin.test_policy", permission: "admin:manage",
    input: z.strictObject({
      text: DraftText,
      tool: z.string().min(1).max(130),
      argsText: z.string().max(100_000, "The sample arguments are too long."),
      requesterRoles: z.array(z.string().max(32)).max(8),
      riskLevel: z.enum(RISK_LEVELS),
      riskTags: z.array(z.string().max(64)).max(50),
    }),
  },
  async ({ text, tool, argsText, requesterRoles, riskLevel, riskTags }, member) =>
    testPolicySample(getDb(), {
      tenantId: member.tenant.id, document: parseJsonText(text, "policy"),
      sample: { tool, args: parseJsonText(argsText, "sample's arguments"), requesterRoles, riskLevel, riskTags },
    }),
);
export async function testPolicyAction(raw: unknown): Promise<ActionResult<PolicyTrace>> {
  return testSample(raw);
}
