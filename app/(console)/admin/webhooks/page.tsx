import type { Metadata } from "next";
import Link from "next/link";
import { getDb } from "@/lib/db/client";
import { requirePageMember } from "@/lib/server/acting-member";
import { listWebhooks } from "@/lib/webhooks/list-webhooks";
import { WEBHOOK_EVENT_LABELS, WEBHOOK_EVENT_TYPES } from "@/lib/webhooks/webhook-events";
import { PageHeader } from "@/components/shell/page-header";
import { WebhookDeliveries, WebhookEndpoints, RegisterWebhook } from "@/components/admin/webhooks";
import { redeliverWebhookAction, registerWebhookAction, removeWebhookAction, rotateWebhookSecretAction } from "./actions";
import { PageSection } from "@/components/shell/page-section";

export const metadata: Metadata = { title: "Webhooks" };

export default async function WebhooksPage() {
  const member = await requirePageMember("admin:manage", "/admin/webhooks");
  const { endpoints, deliveries } = await listWebhooks(getDb(), member.tenant.id);
  const urlOf = new Map(endpoints.map((e) => [e.id, e.url]));
  return (
    <>
      <PageHeader
        title="Webhooks"
        description={`Signed notices (Standard Webhooks) of what happens in ${member.tenant.name}, retried with backoff until the receiver accepts them. They carry ids, tool, status and a link, never the arguments.`}
      >
        <Link href="/admin" className="text-sm text-indigo-800 underline decoration-slate-300 hover:decoration-indigo-700">Back to admin</Link>
      </PageHeader>
      <div className="space-y-5">
        <PageSection id="register" title="Add an endpoint" description="http(s) only. Hosts that resolve to loopback, private or link-local addresses are refused unless you allow that host explicitly.">
          <RegisterWebhook events={WEBHOOK_EVENT_TYPES.map((type) => ({ type, label: WEBHOOK_EVENT_LABELS[type] }))} register={registerWebhookAction} />
        </PageSection>
        <PageSection id="endpoints" title="Endpoints">
          <WebhookEndpoints
            endpoints={endpoints.map((e) => ({
              id: e.id, url: e.url, description: e.description, events: e.events, allowPrivate: e.allowPrivate,
              previousSecretUntil: e.previousSecretUntil?.toISOString() ?? null, createdAt: e.createdAt.toISOString(),
            }))}
            rotate={rotateWebhookSecretAction}
            remove={removeWebhookAction}
          />
        </PageSection>
        <PageSection id="deliveries" title="Delivery log" description="The latest 50 deliveries. A delivered or failed one can be sent again under the same webhook-id.">
          <WebhookDeliveries
            deliveries={deliveries.map((d) => ({
              id: d.id, url: urlOf.get(d.endpointId) ?? "", messageId: d.messageId, eventType: d.eventType, status: d.status,
              attempts: d.attempts, nextAttemptAt: d.nextAttemptAt.toISOString(), lastStatus: d.lastStatus, lastError: d.lastError,
              deliveredAt: d.deliveredAt?.toISOString() ?? null, createdAt: d.createdAt.toISOString(), resendable: d.resendable,
            }))}
            redeliver={redeliverWebhookAction}
          />
        </PageSection>
      </div>
    </>
  );
}
