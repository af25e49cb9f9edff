export const RISK_LEVELS = ["low", "medium", "high", "critical"] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

/** Sort key: higher is riskier. `tags.sort((a, b) => RISK_RANK[b.severity] - RISK_RANK[a.severity])`. */
export const RISK_RANK = { low: 0, medium: 1, high: 2, critical: 3 } as const satisfies Record<RiskLevel, number>;

export type RiskTagSource = "class" | "argument" | "provenance" | "injection" | "scan" | "text" | "state";

export type RiskTag = {
  /** Stable, dotted id, e.g. "recipient.outside-domain". */
  id: string;
  severity: RiskLevel;
  /** One line for a reviewer; never contains line breaks or invisible characters. */
  reason: string;
  source: RiskTagSource;
  /** Argument path, e.g. `to[1]` or `body`. */
  path?: string;
  /** 1-based code line, for scan findings. */
  line?: number;
  /** The whole untrusted passage a finding is about (the reason quotes only its start); shown as a quote. */
  quote?: string;
};

/** The highest severity among the tags; no tags → "low". */
export function riskLevel(tags: readonly Pick<RiskTag, "severity">[]): RiskLevel {
  let level: RiskLevel = "low";
  for (const t of tags) if (RISK_RANK[t.severity] > RISK_RANK[level]) level = t.severity;
  return level;
}

/**
 * A tag's `path` is at most this many characters: paths are built from keys the agent chooses,
 * and an uncut 250 KB key over 99 URLs made 99 tags of 250 KB, stored and parsed for every queue
 * row. A real path is far shorter; 200 is also where a reason is cut.
 */
export const MAX_TAG_PATH = 200;

/**
 * `path` cut to MAX_TAG_PATH, marked "…" in the middle: the end names the element (`…"][17]`) and
 * tells siblings apart. Never splits a surrogate pair.
 */
export function boundedPath(path: string): string {
  if (path.length <= MAX_TAG_PATH) return path;
  const keep = MAX_TAG_PATH - 1;
  let head = path.slice(0, Math.ceil(keep / 2));
  let tail = path.slice(path.length - Math.floor(keep / 2));
  if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1);
  if (/^[\uDC00-\uDFFF]/.test(tail)) tail = tail.slice(1);
  return `${head}…${tail}`;
}
