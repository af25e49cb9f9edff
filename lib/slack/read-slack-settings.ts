import type { Db } from "@/lib/db/client";
import { readSlackConnection, type SlackConnection } from "@/lib/db/statements/notifications/read-slack-settings";
import { listFailedSlackDeliveries, type FailedSlackDelivery } from "@/lib/slack/slack-deliveries";

export type SlackSettings = SlackConnection & { failing: FailedSlackDelivery[] };

/** What an admin sees of the tenant's Slack connection (Admin → Slack): never its secrets. */
export async function readSlackSettings(db: Db, input: { tenantId: string }): Promise<SlackSettings> {
  const [connection, failing] = await Promise.all([readSlackConnection(db, input), listFailedSlackDeliveries(db, input.tenantId)]);
  return { ...connection, failing };
}
