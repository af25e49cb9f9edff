-- Audit events are written unsealed, in the transaction that makes the change they record, and
-- sealed into the tenant's hash chain moments later by lib/audit/seal-audit-chain.ts: one
-- transaction per batch, serialised per tenant on an advisory lock, assigns seq, prevHash and
-- hash and advances the tenant's AuditHead. Writers no longer queue on the chain, so the chain is
-- no longer what limits a tenant's write rate, and it still never forks.
-- (Statement separators inside function bodies are written \073: Prisma splits migrations on
-- semicolons.)
ALTER TABLE "AuditEvent" ALTER COLUMN "seq" DROP NOT NULL,
  ALTER COLUMN "prevHash" DROP NOT NULL,
  ALTER COLUMN "hash" DROP NOT NULL;

CREATE INDEX "AuditEvent_unsealed_idx" ON "AuditEvent" ("tenantId", id) WHERE seq IS NULL;

-- Still append-only: the one UPDATE allowed is sealing, which fills seq, prevHash and hash of an
-- unsealed event and changes nothing else. Sealed events can be neither updated nor deleted.
CREATE OR REPLACE FUNCTION "audit_event_append_only"() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN IF TG_OP = ''UPDATE'' AND OLD.seq IS NULL AND OLD."prevHash" IS NULL AND OLD.hash IS NULL AND NEW.seq IS NOT NULL AND NEW."prevHash" IS NOT NULL AND NEW.hash IS NOT NULL AND (to_jsonb(NEW) - ''seq'' - ''prevHash'' - ''hash'') = (to_jsonb(OLD) - ''seq'' - ''prevHash'' - ''hash'') THEN RETURN NEW\073 END IF\073 RAISE EXCEPTION ''AuditEvent is append-only: % refused'', TG_OP USING ERRCODE = ''insufficient_privilege''\073 END\073';

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
