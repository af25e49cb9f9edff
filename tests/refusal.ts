import { AppError } from "@/lib/errors";

/** The AppError `promise` was refused with; fails the test if it succeeded or threw anything else. */
export async function refusal(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error("expected a refusal, but the call succeeded");
}
