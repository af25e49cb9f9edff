/** Formats integer minor units for people: 2500000 → "25,000.00". */
export function formatMinor(amountMinor: number, currency = "USD"): string {
  const sign = amountMinor < 0 ? "-" : "";
  const abs = Math.abs(amountMinor);
  const major = Math.floor(abs / 100).toLocaleString("en-US");
  return `${sign}${major}.${String(abs % 100).padStart(2, "0")} ${currency}`;
}

/** Whether a field holds money in integer minor units (amount_minor, amount_refunded_minor…). */
export function isMinorUnitsField(field: string): boolean {
  return /_minor$/.test(field.split(".").at(-1) ?? "");
}
