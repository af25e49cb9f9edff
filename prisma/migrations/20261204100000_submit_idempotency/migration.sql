-- Idempotent submits (POST /api/v1/actions with an Idempotency-Key header): the key an API key
-- submitted an action under, unique per key, and a hash of the request it was submitted with, so
-- a retried or concurrent duplicate finds the action instead of proposing a second one, and the
-- same key with another request is refused. The unique index is what binds the key: the
-- statement that writes the action inserts it with ON CONFLICT DO NOTHING on this index.
ALTER TABLE "Action" ADD COLUMN     "submitKey" TEXT,
ADD COLUMN     "submitRequestHash" TEXT;

CREATE UNIQUE INDEX "Action_requesterApiKeyId_submitKey_key" ON "Action"("requesterApiKeyId", "submitKey");
