/**
 * A Slack conversation id (public C…, private G…, direct D…). Names like #approvals are refused: a
 * renamed channel would silently stop receiving.
 */
export const SLACK_CHANNEL_ID = /^[CGD][A-Z0-9]{6,20}$/;
