"use server";

import { z } from "zod";
import { getDb } from "@/lib/db/client";
import { queueNeighbours } from "@/lib/review/queue-neighbours";
import { memberAction } from "@/lib/server/boundary";

/** The undecided actions before and after this one in the reviewer's queue (j/k and decide-and-advance on the action page). */
export const queueNeighboursFromConsole = memberAction(
  { name: "queueNeighboursFromConsole", permission: "queue:review", input: z.strictObject({ actionId: z.uuid() }) },
  async (input, member) => queueNeighbours(getDb(), { tenantId: member.tenant.id, userId: member.user.id, roles: member.roles }, input.actionId),
);
