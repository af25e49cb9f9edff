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
        <section aria-labelledby="password-heading" className="rounded-lg border border-slate-200 bg-white">
          <div className="border-b border-slate-200 px-4 py-2">
            <h2 id="password-heading" className="font-semibold">Password</h2>
            <p className="text-sm text-slate-600">Changing it signs out every other session of yours. The change is audited.</p>
          </div>
          <div className="p-4">
            <ChangePasswordForm minLength={NEW_PASSWORD_MIN_LENGTH} changePassword={changePasswordAction} />
          </div>
        </section>
        <section aria-labelledby="passkeys-heading" className="rounded-lg border border-slate-200 bg-white">
          <div className="border-b border-slate-200 px-4 py-2">
            <h2 id="passkeys-heading" className="font-semibold">Passkeys</h2>
            <p className="text-sm text-slate-600">Sign approvals with your device or security key, where a policy asks for it. Adding and removing one is audited.</p>
          </div>
          <div className="p-4">
            <PasskeyList passkeys={passkeys} origins={await passkeyOrigins()} actions={{ begin: beginPasskeyRegistration, complete: completePasskeyRegistration, remove: removePasskeyAction }} />
          </div>
        </section>
        <section aria-labelledby="slack-heading" className="rounded-lg border border-slate-200 bg-white">
          <div className="border-b border-slate-200 px-4 py-2">
            <h2 id="slack-heading" className="font-semibold">Slack</h2>
            <p className="text-sm text-slate-600">Link your Slack user so the Approve and Reject buttons on Countersign&apos;s Slack messages count as your decisions. Linking is audited.</p>
          </div>
          <div className="p-4"><SlackLink linkedAs={slackLink?.slackUserId ?? null} start={startSlackLinkAction} /></div>
        </section>
        <section aria-labelledby="email-heading" className="rounded-lg border border-slate-200 bg-white">
          <div className="border-b border-slate-200 px-4 py-2">
            <h2 id="email-heading" className="font-semibold">Reviewer emails</h2>
            <p className="text-sm text-slate-600">For actions you may decide in this organisation; each links to the action&apos;s page, never to a decision. Switch organisation to set another&apos;s. A change is audited.</p>
          </div>
          <div className="p-4">
            <EmailPreferenceForm mode={emailMode} tenantName={member.tenant.name}
              digestMinutes={reviewerEmailSettings().digestSeconds / 60} setEmailMode={setEmailModeAction} />
          </div>
        </section>
        <section aria-labelledby="sessions-heading" className="rounded-lg border border-slate-200 bg-white">
          <div className="border-b border-slate-200 px-4 py-2">
            <h2 id="sessions-heading" className="font-semibold">Signed-in sessions</h2>
            <p className="text-sm text-slate-600">Each ends when you sign out there, when it expires, or when you change your password.</p>
          </div>
          <div className="p-3"><SessionList sessions={sessions} /></div>
        </section>
      </div>
    </>
  );
}
