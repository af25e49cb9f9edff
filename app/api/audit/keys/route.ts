import { auditKeys } from "@/lib/audit/audit-keys";
import { configuredWitnesses } from "@/lib/audit/witness-checkpoint";

export const dynamic = "force-dynamic";

/**
 * GET /.well-known/countersign-audit-keys (and /api/audit/keys): the public keys that sign and
 * witness this console's audit checkpoints, for anyone verifying an export offline. Public: it
 * holds nothing secret and names no tenant.
 */
export function GET(): Response {
  const keys = auditKeys();
  return Response.json(
    {
      logKey: keys.verifierKey,
      logName: keys.name,
      origins: `${keys.name}/<tenant id>`,
      witnessKeys: configuredWitnesses().keys,
      formats: { checkpoint: "https://c2sp.org/tlog-checkpoint", cosignature: "https://c2sp.org/tlog-cosignature", tree: "RFC 6962 / RFC 9162 (SHA-256)" },
    },
    { headers: { "Cache-Control": "public, max-age=300" } },
  );
}
