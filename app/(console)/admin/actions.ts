"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { revokeApiKey } from "@/lib/api-keys/revoke-api-key";
import { setAgentsPause } from "@/lib/agents-pause/set-agents-pause";
import { setApiKeyPause } from "@/lib/agents-pause/set-api-key-pause";
import { parseStrictJson } from "@/lib/canonical/parse-strict-json";
import { getDb } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { setMemberRoles } from "@/lib/members/set-member-roles";
import { ALL_ROLES } from "@/lib/roles/permissions";
import { savePolicy } from "@/lib/policy/save-policy";
import type { PolicyValidationError } from "@/lib/policy/compile-policy";
import { checkPolicy } from "@/lib/policy/check-policy";
import { policyToolCatalogue } from "@/lib/policy/policy-tool-catalogue";
import { memberAction, type ActionResult } from "@/lib/server/boundary";
import type { ActingMember } from "@/lib/auth/acting-member";
import { revokeGrant } from "@/lib/grants/revoke-grants";

const actorOf = (member: ActingMember) => ({ type: "user" as const, id: member.user.id, label: member.user.email });

const setRoles = memberAction(
  { name: "admin.set_roles", permission: "admin:manage", input: z.strictObject({ membershipId: z.uuid(), roles: z.array(z.enum(ALL_ROLES)).max(4) }) },
  async ({ membershipId, roles }, member) => {
    const result = await setMemberRoles(getDb(), { tenantId: member.tenant.id, membershipId, roles, actor: actorOf(member) });
    revalidatePath("/admin");
    return result;
  },
);
export async function setMemberRolesAction(raw: unknown) {
  return setRoles(raw);
}

/** The textarea's JSON, parsed strictly (duplicate keys, lone surrogates and huge input refused). */
function parsePolicyText(text: string): unknown {
  try {
    return parseStrictJson(text, { maxBytes: 256 * 1024, maxDepth: 32 });
  } catch (error) {
    const message = error instanceof Error ? error.message : "not valid JSON";
    throw new AppError("invalid_policy", "The policy is not valid JSON.", 400, { errors: [{ path: "(JSON)", message }] satisfies PolicyValidationError[] });
  }
}

const PolicyTextSchema = z.strictObject({ text: z.string().max(300_000, "The policy is too long.") });

const validate = memberAction({ name: "admin.validate_policy", permission: "admin:manage", input: PolicyTextSchema }, async ({ text }, member) => {
  const document = parsePolicyText(text);
  const tools = await policyToolCatalogue(getDb(), member.tenant.id);
  const result = await checkPolicy(document, { forSave: true, tools });
  return result.ok ? { ok: true as const, errors: [], notes: result.notes } : { ok: false as const, errors: result.errors, notes: result.notes };
});
export async function validatePolicyAction(raw: unknown) {
  return validate(raw);
}

const save = memberAction(
  {
    name: "admin.save_policy", permission: "admin:manage",
    input: PolicyTextSchema.extend({ baseVersion: z.number().int().min(0), comment: z.string().max(500).optional() }),
  },
  async ({ text, baseVersion, comment }, member) => {
    const result = await savePolicy(getDb(), { tenantId: member.tenant.id, baseVersion, document: parsePolicyText(text), comment, actor: actorOf(member) });
    revalidatePath("/admin");
    return result;
  },
);
export async function savePolicyAction(raw: unknown): Promise<ActionResult<{ version: number }>> {
  return save(raw);
}

const createKey = memberAction(
  { name: "admin.create_api_key", permission: "admin:manage", input: z.strictObject({ name: z.string().max(200), allowedTools: z.array(z.string().max(64)).max(50) }) },
  async ({ name, allowedTools }, member) => {
    const { apiKey, secret } = await createApiKey(getDb(), { tenantId: member.tenant.id, name, allowedTools, createdById: member.user.id });
    revalidatePath("/admin");
    return { name: apiKey.name, prefix: apiKey.prefix, secret };
  },
);
export async function createApiKeyAction(raw: unknown): Promise<ActionResult<{ name: string; prefix: string; secret: string }>> {
  return createKey(raw);
}

const revokeKey = memberAction(
  { name: "admin.revoke_api_key", permission: "admin:manage", input: z.strictObject({ id: z.uuid() }) },
  async ({ id }, member) => {
    const result = await revokeApiKey(getDb(), { tenantId: member.tenant.id, id, actor: actorOf(member) });
    revalidatePath("/admin");
    return { id: result.id };
  },
);
export async function revokeApiKeyAction(raw: unknown): Promise<ActionResult<{ id: string }>> {
  return revokeKey(raw);
}

const pauseKey = memberAction(
  { name: "admin.pause_api_key", permission: "admin:manage", input: z.strictObject({ id: z.uuid(), paused: z.boolean() }) },
  async ({ id, paused }, member) => {
    const result = await setApiKeyPause(getDb(), { tenantId: member.tenant.id, id, paused, actor: actorOf(member) });
    revalidatePath("/admin");
    return { id: result.id };
  },
);
export async function setApiKeyPausedAction(raw: unknown): Promise<ActionResult<{ id: string }>> {
  return pauseKey(raw);
}

const pauseAgents = memberAction(
  {
    name: "admin.pause_agents", permission: "admin:manage",
    input: z.strictObject({ paused: z.boolean(), reason: z.string().max(500, "Keep the reason under 500 characters.").optional() }),
  },
  async ({ paused, reason }, member) => {
    const result = await setAgentsPause(getDb(), { tenantId: member.tenant.id, paused, reason, actor: actorOf(member) });
    // The banner is on every page.
    revalidatePath("/", "layout");
    return { paused: result.paused };
  },
);
export async function setAgentsPausedAction(raw: unknown): Promise<ActionResult<{ paused: boolean }>> {
  return pauseAgents(raw);
}

const revokeGrantOf = memberAction(
  { name: "admin.revoke_grant", permission: "admin:manage", input: z.strictObject({ id: z.uuid() }) },
  async ({ id }, member) => {
    await revokeGrant(getDb(), { tenantId: member.tenant.id, grantId: id, actor: actorOf(member) });
    revalidatePath("/admin");
    return { id };
  },
);
export async function revokeGrantAction(raw: unknown): Promise<ActionResult<{ id: string }>> {
  return revokeGrantOf(raw);
}
