"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { getDb } from "@/lib/db/client";
import { checkpointAuditLog } from "@/lib/audit/checkpoint-audit-log";
import { startFullVerification } from "@/lib/audit/audit-upkeep";
import { memberAction } from "@/lib/server/boundary";

const checkpoint = memberAction(
  { name: "audit.checkpoint", permission: "audit:export", input: z.strictObject({}) },
  async (_input, member) => {
    const outcome = await checkpointAuditLog(getDb(), member.tenant.id, { force: true });
    revalidatePath("/audit");
    if (outcome.state === "refused") return { state: "refused" as const, problem: outcome.verification.problems[0]?.message ?? "The evidence does not verify." };
    return { state: outcome.state, size: outcome.size.toString() };
  },
);
/** Signs a checkpoint of the tenant's tree now (after verifying what was added since the last one). */
export async function checkpointNowAction(raw: unknown) {
  return checkpoint(raw);
}

const verify = memberAction(
  { name: "audit.verify_all", permission: "audit:export", input: z.strictObject({}) },
  async (_input, member) => ({ started: startFullVerification(getDb(), member.tenant.id) }),
);
/** Starts a full verification of the tenant's evidence in the background; its result is recorded and shown on /audit. */
export async function verifyEverythingAction(raw: unknown) {
  return verify(raw);
}
