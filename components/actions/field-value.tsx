import { formatMinor, isMinorUnitsField } from "@/lib/tools/money";
import { InlineValue } from "@/components/actions/section";

/** A field's value as a person reads it: money in major units (the stored minor units on hover), the rest as is. */
export function FieldValue({ field, value }: { field: string; value: unknown }) {
  if (isMinorUnitsField(field) && typeof value === "number" && Number.isInteger(value)) {
    return <span className="font-mono text-[0.8rem]" title={`${value} minor units`}>{formatMinor(value, "").trim()}</span>;
  }
  return <InlineValue value={value} />;
}
