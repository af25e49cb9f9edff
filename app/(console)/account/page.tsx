import type { Metadata } from "next";
import { NEW_PASSWORD_MIN_LENGTH } from "@/lib/auth/change-password";
import { listSessions } from "@/lib/auth/list-sessions";
import { getDb } from "@/lib/db/client";
import { requirePageMember } from "@/lib/server/acting-member";
import { PageHeader } from "@/components/shell/page-header";
import { ChangePasswordForm } from "@/components/account/change-password-form";
import { SessionList } from "@/components/account/session-list";
import { PasskeyList } from "@/components/account/passkey-list";
import { listPasskeys } from "@/lib/passkeys/list-passkeys";
import { passkeyOrigins } from "@/lib/server/relying-party";
import { EmailPreferenceForm } from "@/components/account/email-preference-form";
import { readEmailMode } from "@/lib/notifications/read-email-mode";
import { reviewerEmailSettings } from "@/lib/notifications/reviewer-email-settings";
import { changePasswordAction } from "./actions";
import { setEmailModeAction } from "./email-preference-actions";
import { beginPasskeyRegistration, completePasskeyRegistration, removePasskeyAction } from "./passkey-actions";
import { SlackLink } from "@/components/account/slack-link";
import { startSlackLinkAction } from "./slack-actions";
import { PageSection } from "@/components/shell/page-section";

export const metadata: Metadata = { title: "Account" };

export default async function AccountPage() {
  const member = await requirePageMember(undefined, "/account");
  const sessions = await listSessions(getDb(), member.user.id, member.session.id);
  const passkeys = await listPasskeys(getDb(), member.user.id);
  const slackLink = await getDb().slackUserLink.findFirst({ where: { tenantId: member.tenant.id, userId: member.user.id, linkedAt: { not: null } }, select: { slackUserId: true } });
  const emailMode = await readEmailMode(getDb(), { tenantId: member.tenant.id, userId: member.user.id });
  return (
    <>
      <PageHeader title="Account" description={`${member.user.name} · ${member.user.email}`} />
      <div className="space-y-5">
        <PageSection id="password" title="Password" bodyClassName="p-4" description="Changing it signs out every other session of yours. The change is audited.">
          <ChangePasswordForm minLength={NEW_PASSWORD_MIN_LENGTH} changePassword={changePasswordAction} />
        </PageSection>
        <PageSection id="passkeys" title="Passkeys" bodyClassName="p-4" description="Sign approvals with your device or security key, where a policy asks for it. Adding and removing one is audited.">
          <PasskeyList passkeys={passkeys} origins={await passkeyOrigins()} actions={{ begin: beginPasskeyRegistration, complete: completePasskeyRegistration, remove: removePasskeyAction }} />
        </PageSection>
        <PageSection id="slack" title="Slack" bodyClassName="p-4" description="Link your Slack user so the Approve and Reject buttons on Countersign's Slack messages count as your decisions. Linking is audited.">
          <SlackLink linkedAs={slackLink?.slackUserId ?? null} start={startSlackLinkAction} />
        </PageSection>
        <PageSection id="email" title="Reviewer emails" bodyClassName="p-4" description="For actions you may decide in this organisation; each links to the action's page, never to a decision. Switch organisation to set another's. A change is audited.">
          <EmailPreferenceForm mode={emailMode} tenantName={member.tenant.name}
            digestMinutes={reviewerEmailSettings().digestSeconds / 60} setEmailMode={setEmailModeAction} />
        </PageSection>
        <PageSection id="sessions" title="Signed-in sessions" description="Each ends when you sign out there, when it expires, or when you change your password.">
          <SessionList sessions={sessions} />
        </PageSection>
      </div>
    </>
  );
}
