import { handleSlackInteraction } from "@/lib/slack/handle-slack-interaction";
import { slackRoute } from "@/lib/slack/slack-route";

export const dynamic = "force-dynamic";

/** The Slack app's Interactivity Request URL: button presses and the reject dialog, signed by Slack. */
export const POST = slackRoute(handleSlackInteraction);
