import { AppError } from "@/lib/errors";

/** Refuses an act whose console session ended while it was on its way (lock-acting-membership.ts). */
export function sessionEndedError(): AppError {
  return new AppError(
    "session_ended",
    "Your session has ended (you signed out, it expired, or a change to your account ended it); nothing was changed. Sign in again.",
    401,
  );
}
