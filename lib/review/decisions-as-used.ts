/**
 * The decisions of an action that was decided (executed, rejected, expired…) as they were used:
 * not void, and each reviewer's last on a revision — a reviewer decides a revision again only when
 * their earlier vote had stopped counting (lib/db/statements/actions/cast-vote.ts). While an action is
 * undecided, what counts is asked of the claim's rule instead (read-counting-decisions.ts).
 * `decisions` in the order they were recorded.
 */
export function decisionsAsUsed(decisions: ReadonlyArray<{ id: string; revisionId: string; reviewerId: string; void: boolean }>): Set<string> {
  const last = new Map<string, string>();
  for (const d of decisions) last.set(`${d.revisionId} ${d.reviewerId}`, d.id);
  return new Set(decisions.filter((d) => !d.void && last.get(`${d.revisionId} ${d.reviewerId}`) === d.id).map((d) => d.id));
}
