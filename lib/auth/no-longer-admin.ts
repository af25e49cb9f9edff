import { AppError } from "@/lib/errors";

/**
 * The refusal of an admin act whose statement found its author no longer an admin
 * (lib/db/statements/tenant/admin-rules.ts): 403, in words that say what they may no longer do.
 * `act` completes "Only admins may …", e.g. "save the policy".
 */
export function noLongerAdmin(act: string): AppError {
  return new AppError("forbidden", `Only admins may ${act}, and you are no longer an admin here.`, 403);
}
