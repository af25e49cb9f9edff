-- Processes that keep API keys in memory (lib/api-keys/api-key-cache.ts) LISTEN on
-- "countersign_api_keys". Every change to a key other than its lastUsedAt hint (a revocation,
-- whichever code or person makes it) and every deletion (a tenant's, say) is announced there with
-- the key's id, in the transaction that makes it, so it reaches them when that transaction commits.
CREATE FUNCTION "api_key_announce_change"() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN PERFORM pg_notify(''countersign_api_keys'', OLD.id::text)\073 RETURN NULL\073 END\073';
CREATE TRIGGER "api_key_announce_update" AFTER UPDATE ON "ApiKey"
  FOR EACH ROW WHEN ((to_jsonb(NEW) - 'lastUsedAt') IS DISTINCT FROM (to_jsonb(OLD) - 'lastUsedAt'))
  EXECUTE FUNCTION "api_key_announce_change"();
CREATE TRIGGER "api_key_announce_delete" AFTER DELETE ON "ApiKey"
  FOR EACH ROW EXECUTE FUNCTION "api_key_announce_change"();
