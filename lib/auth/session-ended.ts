import { AppError } from "@/lib/errors";

/** A vote from a Slack user whose link to the member was removed meanwhile (a password change, another member's link). */
export function slackUnlinkedError(): AppError {
  return new AppError(
    "slack_unlinked",
    "Your Slack user is no longer linked to this Countersign account (a password change unlinks it); nothing was recorded. Link it again from your account page.",
    401,
  );
}

/** Refuses an act whose console session ended while it was on its way (lock-acting-membership.ts). */
export function sessionEndedError(): AppError {
  return new AppError(
    "session_ended",
    "Your session has ended (you signed out, it expired, or a change to your account ended it); nothing was changed. Sign in again.",
    401,
  );
}
