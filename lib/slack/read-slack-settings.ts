import type { Db } from "@/lib/db/client";
import { readSlackSettings as readSettings, type SlackSettings } from "@/lib/db/statements/notifications/read-slack-settings";

/** What an admin sees of the tenant's Slack connection (Admin → Slack): never its secrets. */
export function readSlackSettings(db: Db, input: { tenantId: string }): Promise<SlackSettings> {
  return readSettings(db, input);
}
