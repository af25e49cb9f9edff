import { createHash, randomInt } from "node:crypto";
import type { Db } from "@/lib/db/client";

/** Ten minutes to send the code to the Slack app. */
export const SLACK_LINK_CODE_TTL_SECONDS = 600;
const ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

export function slackLinkCodeHash(code: string): string {
  return createHash("sha256").update(code.toUpperCase().replace(/[^A-Z0-9]/g, ""), "utf8").digest("hex");
}

/**
 * A one-time code (40 random bits, ten minutes) that links the member's Slack user once the member
 * sends `/countersign link CODE` to the tenant's Slack app: Slack signs that request and names the
 * user, so the console never trusts an unverified claim of who someone is in Slack. Only the
 * code's hash is stored; a new code replaces an unused one.
 */
export async function startSlackLink(db: Db, input: { tenantId: string; userId: string }): Promise<{ code: string; expiresAt: Date }> {
  const raw = Array.from({ length: 8 }, () => ALPHABET[randomInt(ALPHABET.length)]).join("");
  const code = `${raw.slice(0, 4)}-${raw.slice(4)}`;
  const expiresAt = new Date(Date.now() + SLACK_LINK_CODE_TTL_SECONDS * 1000);
  const codeHash = slackLinkCodeHash(code);
  await db.slackUserLink.upsert({
    where: { tenantId_userId: { tenantId: input.tenantId, userId: input.userId } },
    create: { tenantId: input.tenantId, userId: input.userId, codeHash, codeExpiresAt: expiresAt },
    update: { codeHash, codeExpiresAt: expiresAt },
  });
  return { code, expiresAt };
}
