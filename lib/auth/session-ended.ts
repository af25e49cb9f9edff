import { AppError } from "@/lib/errors";

/** Refuses an act whose console session ended while it was on its way (lock-acting-membership.ts). */
export function sessionEndedError(): AppError {
  return new AppError(
    "session_ended",
    "Your session ended before this was recorded (you signed out, were signed out everywhere, or your password changed); nothing was changed. Sign in again.",
    401,
  );
}
