import type { Metadata } from "next";
import Link from "next/link";
import { getDb } from "@/lib/db/client";
import { readEnv } from "@/lib/env";
import { readSlackSettings } from "@/lib/slack/read-slack-settings";
import { requirePageMember } from "@/lib/server/acting-member";
import { RISK_LEVELS } from "@/lib/risk/risk-tag";
import { PageHeader } from "@/components/shell/page-header";
import { FailedSlackDeliveries, SlackSettingsForm } from "@/components/admin/slack-settings";
import { configureSlackAction, resendSlackAction } from "./actions";
import { PageSection } from "@/components/shell/page-section";

export const metadata: Metadata = { title: "Slack" };

export default async function SlackPage() {
  const member = await requirePageMember("admin:manage", "/admin/slack");
  const { integration, linked, failing } = await readSlackSettings(getDb(), { tenantId: member.tenant.id });
  const base = `${(readEnv("NEXTAUTH_URL") ?? "http://localhost:3000").replace(/\/$/, "")}/api/integrations/slack/${member.tenant.slug}`;
  return (
    <>
      <PageHeader
        title="Slack"
        description={`Post actions waiting for review in ${member.tenant.name} to a Slack channel, with Approve / Reject buttons that count as the linked member's vote.`}
      >
        <Link href="/admin" className="text-sm text-indigo-800 underline decoration-slate-300 hover:decoration-indigo-700">Back to admin</Link>
      </PageHeader>
      <div className="space-y-5">
        <PageSection id="slack-app" title="Slack app" bodyClassName="p-4" description={<>
          In your Slack app: give the bot <code>chat:write</code> and <code>commands</code>, invite it to the channel, set Interactivity&apos;s Request URL to{" "}
          <code className="break-all">{base}/interactions</code> and add the slash command <code>/countersign</code> with Request URL{" "}
          <code className="break-all">{base}/commands</code>.
        </>}>
          <SlackSettingsForm
            configured={integration !== null}
            channel={integration?.channel ?? ""}
            openOnlyFrom={integration?.openOnlyFrom ?? "high"}
            levels={[...RISK_LEVELS]}
            save={configureSlackAction}
          />
          <p className="mt-3 text-sm text-slate-600">{linked} member{linked === 1 ? "" : "s"} linked their Slack user (on their account page).</p>
          <FailedSlackDeliveries
            failed={failing.map((f) => ({ id: f.id, kind: f.kind, actionId: f.actionId, channel: f.channel, lastError: f.lastError }))}
            resend={resendSlackAction}
          />
        </PageSection>
      </div>
    </>
  );
}
