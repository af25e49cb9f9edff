/** Bulk decisions are offered only for low-risk actions that one logical step proposed together. */
export const BULK_RISK_LEVEL = "low";
export const BULK_MAX_ITEMS = 25;

type BulkCandidate = { riskLevel: string; stepKey: string | null; notInspectable?: boolean; stateChanges?: readonly unknown[] | null };

/** Why these actions cannot be decided together, or null when they can. */
export function bulkRefusal(items: readonly BulkCandidate[]): string | null {
  if (items.length < 2) return "Select at least two actions to decide them together.";
  if (items.length > BULK_MAX_ITEMS) return `Decide at most ${BULK_MAX_ITEMS} actions at once.`;
  if (items.some((item) => item.notInspectable)) {
    return "Some of these actions carry values the console cannot inspect; open each one and decide it on its own.";
  }
  if (items.some((item) => item.stateChanges)) return "The state of some of these actions changed since request; re-read it on each before deciding.";
  if (items.some((item) => item.riskLevel !== BULK_RISK_LEVEL)) return "Only low-risk actions can be decided together; open the others one by one.";
  const step = items[0].stepKey;
  if (!step || items.some((item) => item.stepKey !== step)) return "Only actions from one step of one task can be decided together.";
  return null;
}

/** Whether one row can take part in a bulk decision at all. */
export function isBulkCandidate(item: BulkCandidate): boolean {
  return item.riskLevel === BULK_RISK_LEVEL && item.stepKey !== null && !item.notInspectable && !item.stateChanges;
}
