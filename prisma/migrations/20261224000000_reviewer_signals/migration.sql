-- Reviewer signals (issue 15 item 5): how long the reviewer had the arguments on screen before
-- deciding, clamped by the server. A decision is a record: only "void" may change once written
-- (the function body spells its semicolons \073, as the other migrations do).
ALTER TABLE "Decision" ADD COLUMN     "viewedMs" INTEGER;

CREATE FUNCTION "decision_is_immutable"() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN IF NEW.id IS DISTINCT FROM OLD.id OR NEW."tenantId" IS DISTINCT FROM OLD."tenantId" OR NEW."actionId" IS DISTINCT FROM OLD."actionId" OR NEW."revisionId" IS DISTINCT FROM OLD."revisionId" OR NEW."reviewerId" IS DISTINCT FROM OLD."reviewerId" OR NEW.verdict IS DISTINCT FROM OLD.verdict OR NEW.note IS DISTINCT FROM OLD.note OR NEW."payloadHash" IS DISTINCT FROM OLD."payloadHash" OR NEW."createdAt" IS DISTINCT FROM OLD."createdAt" OR NEW."viewedMs" IS DISTINCT FROM OLD."viewedMs" THEN RAISE EXCEPTION ''A decision is immutable once recorded (only void may change)'' USING ERRCODE = ''restrict_violation''\073 END IF\073 RETURN NEW\073 END\073';

CREATE TRIGGER "Decision_immutable" BEFORE UPDATE ON "Decision" FOR EACH ROW EXECUTE FUNCTION "decision_is_immutable"();
