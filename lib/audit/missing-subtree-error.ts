/** A subtree the stored tree should hold and does not (a seal removed behind the console's back). */
export class MissingSubtreeError extends Error {}
