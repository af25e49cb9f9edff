"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { getDb } from "@/lib/db/client";
import type { ActingMember } from "@/lib/auth/acting-member";
import { memberAction, type ActionResult } from "@/lib/server/boundary";
import { redeliverWebhookDelivery, removeWebhookEndpoint, rotateWebhookEndpointSecret } from "@/lib/webhooks/manage-webhook-endpoint";
import { registerWebhookEndpoint, RegisterWebhookSchema } from "@/lib/webhooks/register-webhook-endpoint";

const actorOf = (member: ActingMember) => ({ type: "user" as const, id: member.user.id, label: member.user.email });

const register = memberAction(
  { name: "admin.webhooks.register", permission: "admin:manage", input: RegisterWebhookSchema },
  async (fields, member) => {
    const result = await registerWebhookEndpoint(getDb(), { tenantId: member.tenant.id, actor: actorOf(member), fields });
    revalidatePath("/admin/webhooks");
    return result;
  },
);
export async function registerWebhookAction(raw: unknown): Promise<ActionResult<{ id: string; secret: string }>> {
  return register(raw);
}

const rotate = memberAction(
  { name: "admin.webhooks.rotate", permission: "admin:manage", input: z.strictObject({ id: z.uuid() }) },
  async ({ id }, member) => {
    const { secret, previousValidUntil } = await rotateWebhookEndpointSecret(getDb(), { tenantId: member.tenant.id, id, actor: actorOf(member) });
    revalidatePath("/admin/webhooks");
    return { secret, previousValidUntil: previousValidUntil?.toISOString() ?? null };
  },
);
export async function rotateWebhookSecretAction(raw: unknown): Promise<ActionResult<{ secret: string; previousValidUntil: string | null }>> {
  return rotate(raw);
}

/** An admin act on one endpoint or delivery by id, then the page shown again. */
const byId = (name: string, act: typeof removeWebhookEndpoint) => memberAction(
  { name, permission: "admin:manage", input: z.strictObject({ id: z.uuid() }) },
  async ({ id }, member) => {
    await act(getDb(), { tenantId: member.tenant.id, id, actor: actorOf(member) });
    revalidatePath("/admin/webhooks");
    return { id };
  },
);

const remove = byId("admin.webhooks.remove", removeWebhookEndpoint);
export async function removeWebhookAction(raw: unknown): Promise<ActionResult<{ id: string }>> {
  return remove(raw);
}

const redeliver = byId("admin.webhooks.redeliver", redeliverWebhookDelivery);
export async function redeliverWebhookAction(raw: unknown): Promise<ActionResult<{ id: string }>> {
  return redeliver(raw);
}
