/** An amount of money mentioned in free text, in minor units. */
export type MoneyMention = {
  amountMinor: number;
  /** Written like money (a currency sign or word, cents, or thousands separators), not a bare number. */
  looksLikeMoney: boolean;
  /** The up to 24 characters before it, lower-cased (for "refund 400" style cues). */
  before: string;
};

const MONEY =
  /(?<![\w.,-])([$€£]|US\$|USD|EUR)?\s?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?(?!\w|,\d{3}|\.\d)(\s?(?:USD|EUR|dollars?|euros?))?(?!\s*(?:%|(?:days?|percent|hours?|approvers?|people|times|minutes?)\b))/gi;

/**
 * Amounts written in text: "450", "450.00", "$12,000", "12000.00 USD". Invoice and customer
 * numbers (INV-1042, CUST-001) are not amounts.
 */
export function moneyMentions(text: string): MoneyMention[] {
  const cleaned = text.replace(/\b(?:INV|CUST)-\d+\b/gi, (m) => " ".repeat(m.length));
  const out: MoneyMention[] = [];
  for (const match of cleaned.matchAll(MONEY)) {
    const [, sign, whole, cents, word] = match;
    const major = Number(whole.replace(/,/g, ""));
    const minor = cents ? Number(cents.padEnd(2, "0")) : 0;
    const amountMinor = major * 100 + minor;
    if (!Number.isSafeInteger(amountMinor)) continue;
    out.push({
      amountMinor,
      looksLikeMoney: Boolean(sign || cents || word || whole.includes(",")),
      before: cleaned.slice(Math.max(0, (match.index ?? 0) - 24), match.index ?? 0).toLowerCase(),
    });
  }
  return out;
}
