/**
 * A Slack conversation id as Slack's API takes it (public C…, private G…, direct D…): what the
 * Slack settings and a policy rule's escalation channel name. Names like #approvals are refused,
 * since a renamed channel would silently stop receiving.
 */
export const SLACK_CHANNEL_ID = /^[CGD][A-Z0-9]{6,20}$/;
