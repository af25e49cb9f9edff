import { formatMinor, isMinorUnitsField } from "@/lib/tools/money";

type Line = { text: string; note?: string };

/**
 * A JSON value as JSON.stringify(value, null, 2) writes it, with each money field in integer minor
 * units (`amount_minor`, `amount_refunded_minor`…) followed by a comment giving it in major units
 * (`"amount_minor": 45000, // 450.00`), in the currency its object names when it names one. The
 * value itself stays exactly as stored and executed; the comment is how every other place shows it.
 */
export function jsonWithMoney(value: unknown): string {
  return lines(value, "", null)
    .map((line) => (line.note ? `${line.text} // ${line.note}` : line.text))
    .join("\n");
}

function lines(value: unknown, indent: string, note: string | null): Line[] {
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return [{ text: "[]" }];
    const items = value.map((item) => lines(item === undefined ? null : item, inner, null));
    return [{ text: "[" }, ...joined(items, inner), { text: `${indent}]` }];
  }
  if (value !== null && typeof value === "object" && typeof (value as { toJSON?: unknown }).toJSON !== "function") {
    const record = value as Record<string, unknown>;
    const entries = Object.keys(record).filter((key) => record[key] !== undefined && typeof record[key] !== "function");
    if (entries.length === 0) return [{ text: "{}" }];
    const currency = typeof record.currency === "string" && /^[A-Z]{3}$/.test(record.currency) ? record.currency : "";
    const items = entries.map((key) => {
      const v = record[key];
      const money = isMinorUnitsField(key) && typeof v === "number" && Number.isSafeInteger(v) ? formatMinor(v, currency).trim() : null;
      const [first, ...rest] = lines(v, inner, money);
      return [{ ...first, text: `${JSON.stringify(key)}: ${first.text}` }, ...rest];
    });
    return [{ text: "{" }, ...joined(items, inner), { text: `${indent}}` }];
  }
  const text = JSON.stringify(value) ?? "null";
  return [note ? { text, note } : { text }];
}

/** Children indented, separated by commas placed before any comment. */
function joined(items: Line[][], inner: string): Line[] {
  return items.flatMap((item, i) =>
    item.map((line, j) => ({
      ...line,
      text: `${j === 0 ? inner : ""}${line.text}${i < items.length - 1 && j === item.length - 1 ? "," : ""}`,
    })),
  );
}
