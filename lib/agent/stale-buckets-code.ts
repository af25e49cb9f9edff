/**
 * The Python the offline planner proposes for the data-analysis scenario: the rows are embedded as
 * a JSON literal (no file or network access needed) and only json and datetime are imported, so
 * the pre-scan has nothing to block.
 */
export function staleBucketsPython(rows: unknown, thresholdDays: number): string {
  // A JSON string literal is also a valid Python string literal.
  const literal = JSON.stringify(JSON.stringify(rows));
  return [
    "import json",
    "from datetime import date",
    "",
    `ROWS = json.loads(${literal})`,
    `THRESHOLD_DAYS = ${Math.trunc(thresholdDays)}`,
    "",
    "today = date.today()",
    "stale = []",
    "for row in ROWS:",
    "    if not isinstance(row, dict) or not isinstance(row.get(\"last_access\"), str):",
    "        continue",
    "    last = row[\"last_access\"][:10]",
    "    age = (today - date.fromisoformat(last)).days",
    "    if age >= THRESHOLD_DAYS:",
    "        stale.append((str(row.get(\"bucket\", \"?\")), last, age, row.get(\"size_gb\", 0) or 0))",
    "",
    "stale.sort(key=lambda item: item[2], reverse=True)",
    "print(f\"Buckets not accessed in {THRESHOLD_DAYS}+ days (as of {today.isoformat()}): {len(stale)} of {len(ROWS)}\")",
    "for name, last, age, size in stale:",
    "    print(f\"- {name}: last access {last} ({age} days ago), {size} GB\")",
    "print(f\"Total size of stale buckets: {sum(item[3] for item in stale)} GB\")",
    "",
  ].join("\n");
}
