import { AppError } from "@/lib/errors";

/**
 * The refusal of a proposal or an execution while the stop button holds the agent back: 423 with
 * the stable code `agents_paused` on every path (API, MCP, console, tasks).
 */
export function agentsPausedError(): AppError {
  return new AppError(
    "agents_paused",
    "An administrator has paused this organisation's agents (or this API key): nothing was proposed or run. Try again once they are resumed.",
    423,
  );
}
