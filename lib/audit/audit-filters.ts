import { z } from "zod";
import { ActionStatus, RiskLevel, TaskStatus, Verdict } from "@/lib/generated/prisma/enums";

const text = (max: number) =>
  z
    .string()
    .trim()
    .max(max, `at most ${max} characters`)
    .optional()
    .transform((v) => (v ? v : undefined));

const day = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v ? v : undefined))
  .refine((v) => v === undefined || (/^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`))), "use a date like 2026-11-29");

/**
 * The audit explorer's filters, as they arrive in a query string (the page's GET form and the
 * export route share them). Empty fields mean "any". Dates are whole UTC days, `to` inclusive.
 */
export const AuditFiltersSchema = z.strictObject({
  from: day,
  to: day,
  tool: text(64),
  verdict: z.enum(Verdict).optional(),
  risk: z.enum(RiskLevel).optional(),
  reviewer: z.uuid("choose a reviewer from the list").optional(),
  requester: text(320),
  status: text(32),
  type: text(64),
  q: text(100),
});

export type AuditFilters = Partial<z.infer<typeof AuditFiltersSchema>>;

/** The statuses the status filter offers: an action's and a task's. */
export const AUDIT_FILTER_STATUSES: readonly string[] = [...new Set<string>([...Object.values(ActionStatus), ...Object.values(TaskStatus)])];
export const AUDIT_FILTER_KEYS = Object.keys(AuditFiltersSchema.shape) as Array<keyof AuditFilters>;

/** Reads filters from search params; empty strings are "any", unknown keys are ignored here (cursor, format). */
export function parseAuditFilters(params: URLSearchParams | Record<string, string | string[] | undefined>): { ok: true; filters: AuditFilters } | { ok: false; errors: string[] } {
  const get = (key: string) => {
    const value = params instanceof URLSearchParams ? params.get(key) : params[key];
    const one = Array.isArray(value) ? value[0] : value;
    return one === null || one === undefined || one === "" ? undefined : one;
  };
  const raw = Object.fromEntries(AUDIT_FILTER_KEYS.map((key) => [key, get(key)]).filter(([, v]) => v !== undefined));
  const parsed = AuditFiltersSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, errors: parsed.error.issues.map((i) => `${i.path.join(".") || "filters"}: ${i.message}`) };
  if (parsed.data.from && parsed.data.to && parsed.data.from > parsed.data.to) return { ok: false, errors: ["The “from” date is after the “to” date."] };
  const filters = Object.fromEntries(Object.entries(parsed.data).filter(([, v]) => v !== undefined)) as AuditFilters;
  return { ok: true, filters };
}

/** The filters back as a query string (for links: next page, export). */
export function auditFiltersQuery(filters: AuditFilters, extra: Record<string, string | undefined> = {}): string {
  const params = new URLSearchParams();
  for (const key of AUDIT_FILTER_KEYS) {
    const value = filters[key];
    if (value !== undefined) params.set(key, String(value));
  }
  for (const [key, value] of Object.entries(extra)) if (value !== undefined) params.set(key, value);
  return params.toString();
}
