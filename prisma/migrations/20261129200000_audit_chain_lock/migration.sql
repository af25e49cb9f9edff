-- Appends to a tenant's audit chain queue on this advisory lock (namespace 0x0a0d17) before they
-- advance the tenant's AuditHead row. Called from the head UPDATE's WHERE clause, so a whole
-- append (or a proposal, a decision or a claim together with its audit event) is one statement
-- and the lock is held only on the server, until that statement's transaction commits.
-- (Statement separators inside bodies are written \073: Prisma splits migrations on semicolons.)
CREATE FUNCTION "audit_chain_lock"(tenant uuid) RETURNS boolean LANGUAGE plpgsql VOLATILE AS E'BEGIN PERFORM pg_advisory_xact_lock(658711, hashtext(tenant::text))\073 RETURN true\073 END\073';

-- Every tenant has its chain head from the start, so a one-statement append never finds it
-- missing.
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
