import { handleSlackCommand } from "@/lib/slack/handle-slack-command";
import { slackRoute } from "@/lib/slack/slack-route";

export const dynamic = "force-dynamic";

/** The Slack app's slash command Request URL (`/countersign link CODE`), signed by Slack. */
export const POST = slackRoute(handleSlackCommand);
