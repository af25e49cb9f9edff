-- The audit chain moves to its own insert-only table, AuditSeal, and events are sealed into it
-- moments after the transaction that wrote them commits (lib/audit/seal-audit-chain.ts): one
-- transaction per batch, serialised per tenant on the AuditHead row, assigns seq, prevHash and
-- hash. Writers no longer queue on the chain, so it no longer limits a tenant's write rate, and it
-- still never forks. AuditEvent stays insert-only (its triggers are unchanged), and a new event is
-- queued in AuditUnsealed by a trigger until it is sealed.
-- (Statement separators inside function bodies are written \073: Prisma splits migrations on
-- semicolons.)

CREATE TABLE "AuditSeal" (
    "eventId" BIGINT NOT NULL,
    "tenantId" UUID NOT NULL,
    "seq" BIGINT NOT NULL,
    "prevHash" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "sealedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AuditSeal_pkey" PRIMARY KEY ("eventId")
);

CREATE UNIQUE INDEX "AuditSeal_tenantId_seq_key" ON "AuditSeal"("tenantId", "seq");

ALTER TABLE "AuditSeal" ADD CONSTRAINT "AuditSeal_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "AuditEvent"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

CREATE TABLE "AuditUnsealed" (
    "eventId" BIGINT NOT NULL,
    "tenantId" UUID NOT NULL,

    CONSTRAINT "AuditUnsealed_pkey" PRIMARY KEY ("eventId")
);

CREATE INDEX "AuditUnsealed_tenantId_eventId_idx" ON "AuditUnsealed"("tenantId", "eventId");

-- Events sealed so far keep their place in the chain.
INSERT INTO "AuditSeal" ("eventId", "tenantId", "seq", "prevHash", "hash")
SELECT id, "tenantId", seq, "prevHash", hash FROM "AuditEvent";

DROP INDEX "AuditEvent_tenantId_seq_key";
ALTER TABLE "AuditEvent" DROP COLUMN "seq", DROP COLUMN "prevHash", DROP COLUMN "hash";

-- The chain is append-only like the events it seals.
CREATE TRIGGER "audit_seal_no_update" BEFORE UPDATE ON "AuditSeal"
  FOR EACH ROW EXECUTE FUNCTION "audit_event_append_only"();
CREATE TRIGGER "audit_seal_no_delete" BEFORE DELETE ON "AuditSeal"
  FOR EACH ROW EXECUTE FUNCTION "audit_event_append_only"();
CREATE TRIGGER "audit_seal_no_truncate" BEFORE TRUNCATE ON "AuditSeal"
  FOR EACH STATEMENT EXECUTE FUNCTION "audit_event_append_only"();

-- Every new event waits in AuditUnsealed until it is sealed, whichever code wrote it.
CREATE FUNCTION "audit_event_enqueue"() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN INSERT INTO "AuditUnsealed" ("eventId", "tenantId") VALUES (NEW.id, NEW."tenantId")\073 RETURN NULL\073 END\073';
CREATE TRIGGER "audit_event_enqueue" AFTER INSERT ON "AuditEvent"
  FOR EACH ROW EXECUTE FUNCTION "audit_event_enqueue"();

-- Every tenant has its chain head from the start.
CREATE FUNCTION "tenant_audit_head"() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN INSERT INTO "AuditHead" ("tenantId", seq, hash, "prevHash", at) VALUES (NEW.id, 0, repeat(''0'', 64), repeat(''0'', 64), to_timestamp(0)) ON CONFLICT ("tenantId") DO NOTHING\073 RETURN NEW\073 END\073';
CREATE TRIGGER "Tenant_audit_head" AFTER INSERT ON "Tenant" FOR EACH ROW EXECUTE FUNCTION "tenant_audit_head"();

INSERT INTO "AuditHead" ("tenantId", seq, hash, "prevHash", at)
SELECT id, 0, repeat('0', 64), repeat('0', 64), to_timestamp(0) FROM "Tenant"
ON CONFLICT ("tenantId") DO NOTHING;

-- Approving votes on the current revision, on the action row itself: a vote is then one
-- conditional UPDATE of that row, and concurrent votes serialise on it.
ALTER TABLE "Action" ADD COLUMN "approvals" INTEGER NOT NULL DEFAULT 0;

UPDATE "Action" a SET "approvals" = (
  SELECT count(*) FROM "Decision" d JOIN "ActionRevision" r ON r.id = d."revisionId"
  WHERE d."actionId" = a.id AND r.revision = a."currentRevision" AND d.verdict = 'approve' AND NOT d."void"
);
