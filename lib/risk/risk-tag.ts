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
