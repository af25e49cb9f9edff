"use server";

import { consoleMember } from "@/lib/auth/acting-member";
import { z } from "zod";
import { rereadActionState } from "@/lib/approvals/reread-action-state";
import { getDb } from "@/lib/db/client";
import { memberAction } from "@/lib/server/boundary";

const RereadSchema = z.strictObject({
  actionId: z.uuid(),
  payloadHash: z.string().regex(/^[0-9a-f]{64}$/, "a payload hash is 64 hex digits"),
});

/** "Re-read state" on a pending action whose state changed since request: revision n+1 over the state now. */
export const rereadStateFromConsole = memberAction(
  { name: "rereadStateFromConsole", permission: "actions:decide", input: RereadSchema },
  async (input, member) => {
    const next = await rereadActionState(getDb(), {
      tenantId: member.tenant.id,
      actionId: input.actionId,
      member: consoleMember(member),
      payloadHash: input.payloadHash,
    });
    return { revision: next.revision, status: next.status };
  },
);
