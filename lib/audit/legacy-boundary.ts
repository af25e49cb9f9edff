import type { Db } from "@/lib/db/client";
import { auditKeys, auditOrigin, type AuditKeys } from "@/lib/audit/audit-keys";
import { heldLegacyBoundary, holdLegacyBoundary } from "@/lib/audit/audit-state-file";
import { parseCheckpoint, verifyNote } from "@/lib/audit/transparency/signed-note";
import { readCheckpointsWithExtension } from "@/lib/db/statements/audit/read-checkpoints-with-extension";
import { readLegacyAuditBoundary } from "@/lib/db/statements/audit/read-legacy-audit-boundary";

/** Events written before MACs existed: the largest such id, and how many there were. */
export type LegacyBoundary = { ceiling: bigint; count: bigint };

/** The checkpoint extension line that carries the boundary: `countersign-legacy-events <ceiling> <count>`. */
const EXTENSION = "countersign-legacy-events";

export function legacyExtension(boundary: LegacyBoundary): string {
  return `${EXTENSION} ${boundary.ceiling} ${boundary.count}`;
}

function parseLegacyExtension(extensions: readonly string[]): LegacyBoundary | null {
  for (const line of extensions) {
    const match = /^countersign-legacy-events (0|[1-9][0-9]*) (0|[1-9][0-9]*)$/.exec(line);
    if (match) return { ceiling: BigInt(match[1]), count: BigInt(match[2]) };
  }
  return null;
}

const boundaries = new WeakMap<Db, Promise<LegacyBoundary>>();

/**
 * The boundary as the console holds it, never as the database says it now (docs/DESIGN.md,
 * "Evidence the database cannot take back", 4). Read once per client.
 */
export function legacyBoundary(db: Db): Promise<LegacyBoundary> {
  let boundary = boundaries.get(db);
  if (!boundary) {
    boundary = heldOrFirstRead(db, auditKeys());
    boundary.catch(() => boundaries.delete(db));
    boundaries.set(db, boundary);
  }
  return boundary;
}

async function heldOrFirstRead(db: Db, keys: AuditKeys): Promise<LegacyBoundary> {
  const held = heldLegacyBoundary(keys.verifierKey);
  if (held) return held;
  const boundary = (await signedLegacyBoundary(db, keys)) ?? (await readLegacyAuditBoundary(db));
  holdLegacyBoundary(keys.verifierKey, boundary);
  return boundary;
}

/** The boundary in the newest checkpoint this console's key signed that carries one (rows anyone inserted are skipped). */
async function signedLegacyBoundary(db: Db, keys: AuditKeys): Promise<LegacyBoundary | null> {
  for (const row of await readCheckpointsWithExtension(db, { prefix: EXTENSION, limit: 50 })) {
    try {
      const { body, verified } = verifyNote(row.note, [keys.verifier]);
      const checkpoint = parseCheckpoint(body);
      if (verified.length === 0 || checkpoint.origin !== auditOrigin(row.tenantId, keys)) continue;
      const boundary = parseLegacyExtension(checkpoint.extensions);
      if (boundary) return boundary;
    } catch {
      // not the console's signature: someone else's row
    }
  }
  return null;
}
