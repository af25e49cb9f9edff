-- The gate reads what a vote and an execution rest on from the revision itself (immutable), and
-- counts approvals from the Decision rows: Action."approvals" was a second record of the same fact.
ALTER TABLE "Action" DROP COLUMN "approvals";

ALTER TABLE "ActionRevision" ADD COLUMN "eligibleRoles" "Role"[],
ADD COLUMN "quorum" INTEGER,
ADD COLUMN "requiresApproval" BOOLEAN;

-- Existing revisions: what their policy decision said.
UPDATE "ActionRevision" r SET
  "requiresApproval" = (r."policyDecision"->>'effect') = 'require_approval',
  "quorum" = GREATEST(1, COALESCE((r."policyDecision"->>'quorum')::int, 1)),
  "eligibleRoles" = ARRAY(SELECT jsonb_array_elements_text(COALESCE(r."policyDecision"->'eligibleRoles', '[]'::jsonb)))::"Role"[];

ALTER TABLE "ActionRevision" ALTER COLUMN "requiresApproval" SET NOT NULL,
ALTER COLUMN "quorum" SET NOT NULL;

-- A revision is the payload reviewers approved: once written, only current → superseded may change.
CREATE FUNCTION "action_revision_immutable"() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN IF (to_jsonb(NEW) - ''status'') IS DISTINCT FROM (to_jsonb(OLD) - ''status'') OR NOT (OLD.status = NEW.status OR (OLD.status = ''current'' AND NEW.status = ''superseded'')) THEN RAISE EXCEPTION ''ActionRevision % is immutable: only current -> superseded may change'', OLD.id USING ERRCODE = ''insufficient_privilege''\073 END IF\073 RETURN NEW\073 END\073';
CREATE TRIGGER "action_revision_immutable" BEFORE UPDATE ON "ActionRevision"
  FOR EACH ROW EXECUTE FUNCTION "action_revision_immutable"();

-- A vote records what the reviewer saw and said: only voiding it (a new revision) may change it.
CREATE FUNCTION "decision_immutable"() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN IF (to_jsonb(NEW) - ''void'') IS DISTINCT FROM (to_jsonb(OLD) - ''void'') OR (OLD.void AND NOT NEW.void) THEN RAISE EXCEPTION ''Decision % is immutable: it may only be voided'', OLD.id USING ERRCODE = ''insufficient_privilege''\073 END IF\073 RETURN NEW\073 END\073';
CREATE TRIGGER "decision_immutable" BEFORE UPDATE ON "Decision"
  FOR EACH ROW EXECUTE FUNCTION "decision_immutable"();

-- A snapshot is the state a decision rested on, as it was read.
CREATE FUNCTION "snapshot_immutable"() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN RAISE EXCEPTION ''Snapshot % is immutable'', OLD.id USING ERRCODE = ''insufficient_privilege''\073 END\073';
CREATE TRIGGER "snapshot_immutable" BEFORE UPDATE ON "Snapshot"
  FOR EACH ROW EXECUTE FUNCTION "snapshot_immutable"();
