-- Evidence a third party can verify (lib/audit/): every event carries the console's MAC (a key
-- outside the database), events are leaves of a per-tenant RFC 6962 Merkle tree, and signed
-- checkpoints commit to the tree. Every audit-side table is append-only: the mutable head
-- (AuditHead) and the delete-as-you-seal queue (AuditUnsealed) are gone. Sealing now finds new
-- events by their writing transaction (xid8): every transaction older than the `floor` recorded
-- on the newest seal had finished when sealing last caught up.
-- (Statement separators inside function bodies are written \073: Prisma splits migrations on
-- semicolons.)

-- Events: the console's identifier and MAC, and the writing transaction. A volatile default
-- rewrites the table without firing row triggers: existing events keep mac NULL (see below).
ALTER TABLE "AuditEvent" ADD COLUMN "uid" UUID NOT NULL DEFAULT gen_random_uuid(),
  ADD COLUMN "mac" TEXT,
  ADD COLUMN "macOmits" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
  ADD COLUMN "xid" xid8 DEFAULT pg_current_xact_id();
ALTER TABLE "AuditEvent" ALTER COLUMN "uid" DROP DEFAULT;
CREATE UNIQUE INDEX "AuditEvent_uid_key" ON "AuditEvent"("uid");
CREATE INDEX "AuditEvent_tenantId_xid_idx" ON "AuditEvent"("tenantId", "xid");

-- Events written before MACs existed: their ids and number, fixed here (functions the app's
-- role cannot replace). Sealing accepts an event without a MAC only at or below this id, and
-- the verifier reports how many there are against this count.
DO E'BEGIN EXECUTE format(''CREATE FUNCTION "audit_legacy_ceiling"() RETURNS bigint IMMUTABLE LANGUAGE sql AS %L'', ''SELECT '' || (SELECT coalesce(max(id), 0) FROM "AuditEvent")::text || ''::bigint'')\073 EXECUTE format(''CREATE FUNCTION "audit_legacy_count"() RETURNS bigint IMMUTABLE LANGUAGE sql AS %L'', ''SELECT '' || (SELECT count(*) FROM "AuditEvent")::text || ''::bigint'')\073 END\073';

-- The old hash chain (unkeyed SHA-256) is replaced by the tree: every existing event is sealed
-- again, in id order, by the next sealing pass.
DROP TABLE "AuditSeal";
DROP TABLE "AuditUnsealed";
DROP TRIGGER "Tenant_audit_head" ON "Tenant";
DROP FUNCTION "tenant_audit_head"();
DROP TRIGGER "audit_event_enqueue" ON "AuditEvent";
DROP FUNCTION "audit_event_enqueue"();
DROP TABLE "AuditHead";

CREATE TABLE "AuditSeal" (
    "eventId" BIGINT NOT NULL,
    "tenantId" UUID NOT NULL,
    "seq" BIGINT NOT NULL,
    "leafHash" TEXT NOT NULL,
    "nodes" TEXT[] NOT NULL,
    "mac" TEXT NOT NULL,
    "floor" xid8 NOT NULL,
    "sealedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AuditSeal_pkey" PRIMARY KEY ("eventId"),
    CONSTRAINT "AuditSeal_seq_positive" CHECK ("seq" > 0)
);
CREATE UNIQUE INDEX "AuditSeal_tenantId_seq_key" ON "AuditSeal"("tenantId", "seq");
ALTER TABLE "AuditSeal" ADD CONSTRAINT "AuditSeal_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "AuditEvent"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

CREATE TABLE "AuditQuarantine" (
    "eventId" BIGINT NOT NULL,
    "tenantId" UUID NOT NULL,
    "reason" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AuditQuarantine_pkey" PRIMARY KEY ("eventId")
);
CREATE INDEX "AuditQuarantine_tenantId_idx" ON "AuditQuarantine"("tenantId");
ALTER TABLE "AuditQuarantine" ADD CONSTRAINT "AuditQuarantine_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "AuditEvent"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

CREATE TABLE "AuditCheckpoint" (
    "id" BIGSERIAL NOT NULL,
    "tenantId" UUID NOT NULL,
    "size" BIGINT NOT NULL,
    "rootHash" TEXT NOT NULL,
    "frontier" TEXT[] NOT NULL,
    "note" TEXT NOT NULL,
    "witnesses" TEXT[] NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AuditCheckpoint_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "AuditCheckpoint_tenantId_size_idx" ON "AuditCheckpoint"("tenantId", "size" DESC);

CREATE TABLE "AuditVerification" (
    "id" BIGSERIAL NOT NULL,
    "tenantId" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "ok" BOOLEAN NOT NULL,
    "checked" BIGINT NOT NULL,
    "treeSize" BIGINT NOT NULL,
    "problems" JSONB NOT NULL,
    "startedAt" TIMESTAMPTZ(3) NOT NULL,
    "finishedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AuditVerification_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "AuditVerification_tenantId_kind_id_idx" ON "AuditVerification"("tenantId", "kind", "id" DESC);

-- Append-only, whoever connects (the app's role has INSERT and SELECT only, besides).
CREATE OR REPLACE FUNCTION "audit_event_append_only"() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN RAISE EXCEPTION ''% is append-only: % refused'', TG_TABLE_NAME, TG_OP USING ERRCODE = ''insufficient_privilege''\073 END\073';
CREATE TRIGGER "audit_seal_no_update" BEFORE UPDATE ON "AuditSeal" FOR EACH ROW EXECUTE FUNCTION "audit_event_append_only"();
CREATE TRIGGER "audit_seal_no_delete" BEFORE DELETE ON "AuditSeal" FOR EACH ROW EXECUTE FUNCTION "audit_event_append_only"();
CREATE TRIGGER "audit_seal_no_truncate" BEFORE TRUNCATE ON "AuditSeal" FOR EACH STATEMENT EXECUTE FUNCTION "audit_event_append_only"();
CREATE TRIGGER "audit_quarantine_no_update" BEFORE UPDATE ON "AuditQuarantine" FOR EACH ROW EXECUTE FUNCTION "audit_event_append_only"();
CREATE TRIGGER "audit_quarantine_no_delete" BEFORE DELETE ON "AuditQuarantine" FOR EACH ROW EXECUTE FUNCTION "audit_event_append_only"();
CREATE TRIGGER "audit_quarantine_no_truncate" BEFORE TRUNCATE ON "AuditQuarantine" FOR EACH STATEMENT EXECUTE FUNCTION "audit_event_append_only"();
CREATE TRIGGER "audit_checkpoint_no_update" BEFORE UPDATE ON "AuditCheckpoint" FOR EACH ROW EXECUTE FUNCTION "audit_event_append_only"();
CREATE TRIGGER "audit_checkpoint_no_delete" BEFORE DELETE ON "AuditCheckpoint" FOR EACH ROW EXECUTE FUNCTION "audit_event_append_only"();
CREATE TRIGGER "audit_checkpoint_no_truncate" BEFORE TRUNCATE ON "AuditCheckpoint" FOR EACH STATEMENT EXECUTE FUNCTION "audit_event_append_only"();
CREATE TRIGGER "audit_verification_no_update" BEFORE UPDATE ON "AuditVerification" FOR EACH ROW EXECUTE FUNCTION "audit_event_append_only"();
CREATE TRIGGER "audit_verification_no_delete" BEFORE DELETE ON "AuditVerification" FOR EACH ROW EXECUTE FUNCTION "audit_event_append_only"();
CREATE TRIGGER "audit_verification_no_truncate" BEFORE TRUNCATE ON "AuditVerification" FOR EACH STATEMENT EXECUTE FUNCTION "audit_event_append_only"();
