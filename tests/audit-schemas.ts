import { expect } from "vitest";
import type { Db } from "@/lib/db/client";
import { parseAuditEventData } from "@/lib/audit/audit-event-types";

/** Every event the tenant's log holds fits its type's schema — also those a statement built itself. */
export async function expectEventsToFitTheirSchemas(db: Db, tenantId: string): Promise<void> {
  const events = await db.auditEvent.findMany({ where: { tenantId }, select: { id: true, type: true, data: true } });
  const misfits = events
    .map((event) => ({ id: event.id.toString(), type: event.type, result: parseAuditEventData(event.type, event.data) }))
    .filter((event) => !event.result.ok);
  expect(misfits).toEqual([]);
  expect(events.length).toBeGreaterThan(0);
}
