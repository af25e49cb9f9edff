import { createHash, randomInt } from "node:crypto";
import type { Db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { writeSlackLinkCode } from "@/lib/db/statements/notifications/write-slack-link-code";

/** Ten minutes to send the code to the Slack app. */
export const SLACK_LINK_CODE_TTL_SECONDS = 600;
const ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

export function slackLinkCodeHash(code: string): string {
  return createHash("sha256").update(code.toUpperCase().replace(/[^A-Z0-9]/g, ""), "utf8").digest("hex");
}

/**
 * A one-time code (40 random bits, ten minutes) that links the member's Slack user when sent with
 * `/countersign link CODE`: Slack signs that request and names the user, so no unverified claim is
 * trusted. Only its hash is stored; it replaces an unused one. Refused until Slack is connected.
 */
export async function startSlackLink(db: Db, input: { tenantId: string; userId: string }): Promise<{ code: string; expiresAt: Date }> {
  const raw = Array.from({ length: 8 }, () => ALPHABET[randomInt(ALPHABET.length)]).join("");
  const code = `${raw.slice(0, 4)}-${raw.slice(4)}`;
  // The expiry is set by the database clock, the one the redeeming statement checks it against.
  const written = await writeSlackLinkCode(db, {
    tenantId: input.tenantId, userId: input.userId, codeHash: slackLinkCodeHash(code), ttlSeconds: SLACK_LINK_CODE_TTL_SECONDS,
  });
  if (!written) throw new AppError("slack_not_configured", "Slack is not connected to this organisation yet: ask an admin to set it up under Admin → Slack.", 409);
  return { code, expiresAt: written.codeExpiresAt };
}
