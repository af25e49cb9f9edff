import type { DbTx } from "@/lib/db/client";
import type { Queryable } from "@/lib/db/sql";
import { appendAuditEvent } from "@/lib/audit/append-audit-event";
import type { ActingMember, TenantMembership } from "@/lib/auth/acting-member";

/**
 * Moves a member's session to another of their tenants, recording `auth.tenant_switched` there
 * before the caller sets the cookie (if it cannot be written this throws). `target` outside their
 * memberships: null (403). The tenant already in use: nothing changes or is recorded.
 */
export async function switchTenant(
  db: DbTx | Queryable,
  member: ActingMember,
  target: { tenantId: string } | { slug: string },
  via: "switcher" | "link",
): Promise<TenantMembership | null> {
  const to = member.memberships.find((m) => ("tenantId" in target ? m.tenantId === target.tenantId : m.slug === target.slug));
  if (!to) return null;
  if (to.tenantId === member.tenant.id) return to;
  await appendAuditEvent(db, {
    tenantId: to.tenantId, actor: { type: "user", id: member.user.id, label: member.user.email }, type: "auth.tenant_switched", outcome: "ok",
    subject: { type: "tenant", id: to.tenantId }, requester: member.user.email,
    data: { fromTenantId: member.tenant.id, fromTenant: member.tenant.slug, toTenant: to.slug, sessionId: member.session.id, via },
  });
  return to;
}
