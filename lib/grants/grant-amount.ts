import { formatMinor, isMinorUnitsField } from "@/lib/tools/money";

/** An amount argument's name for people: `amount_minor` is "amount" (its values are shown in major units). */
export function grantArgumentName(argument: string): string {
  return isMinorUnitsField(argument) ? argument.replace(/_minor$/, "") : argument;
}

/** An amount for people: integer minor units in major units (30000 → "300.00"), anything else as it is. */
export function grantAmount(argument: string, value: number | string): string {
  return isMinorUnitsField(argument) ? formatMinor(Number(value), "").trim() : String(value);
}
