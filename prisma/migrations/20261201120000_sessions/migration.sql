-- Server-side sessions: the session cookie (a next-auth JWT) carries a Session row's id, and every
-- request that decides anything checks the row, so sign-out, role removal, a password change and a
-- disabled account end sessions for real. Expiry and revocation use the database clock.
-- (Statement separators inside function bodies are written \073: Prisma splits migrations on
-- semicolons.)

-- CreateEnum
CREATE TYPE "SessionEndReason" AS ENUM ('signed_out', 'roles_removed', 'password_changed', 'user_disabled');

-- CreateTable
CREATE TABLE "Session" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "userId" UUID NOT NULL,
    "method" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "lastSeenAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revokedAt" TIMESTAMPTZ(3),
    "revokedReason" "SessionEndReason",
    "clientAddress" TEXT,
    "userAgent" TEXT,

    CONSTRAINT "Session_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Session_userId_createdAt_idx" ON "Session"("userId", "createdAt" DESC);

-- AddForeignKey
ALTER TABLE "Session" ADD CONSTRAINT "Session_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Disabling a user ends their sessions, whichever code or person sets "disabledAt", and enabling the
-- account again later does not bring them back.
CREATE FUNCTION "user_disabled_end_sessions"() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN UPDATE "Session" SET "revokedAt" = now(), "revokedReason" = ''user_disabled'' WHERE "userId" = NEW.id AND "revokedAt" IS NULL\073 RETURN NULL\073 END\073';
CREATE TRIGGER "user_disabled_end_sessions" AFTER UPDATE OF "disabledAt" ON "User"
  FOR EACH ROW WHEN (OLD."disabledAt" IS NULL AND NEW."disabledAt" IS NOT NULL)
  EXECUTE FUNCTION "user_disabled_end_sessions"();
