import { z } from "zod";
import type { JsonObject, JsonValue } from "@/lib/canonical/json-value";
import { readCustomer, type CustomerRow } from "@/lib/db/statements/business/read-customer";
import { readCustomers } from "@/lib/db/statements/business/read-customers";
import type { InvoiceRow } from "@/lib/db/statements/business/read-invoice";
import { notFound } from "@/lib/errors";
import { findInvoice, findInvoices } from "@/lib/tools/invoice-state";
import type { Queryable } from "@/lib/db/sql";

/**
 * Coverage by construction (docs/DESIGN.md, "The state a decision rests on"): a tool declares the
 * records its arguments name and the fields of each its effect and preview depend on; its snapshot
 * is exactly those fields, built here, so what a vote rests on is what was declared and a change
 * to any other field of the row leaves it standing.
 */

/** The kinds of record an argument can name. */
export type RecordKind = "invoice" | "customer" | "dataset" | "upstream_tool";

/** Marks an argument's schema as naming a record, so the coverage test finds it (state-references.test.ts). */
export const recordReferences = z.registry<{ names: RecordKind }>();

/** An invoice number as tools accept it (INV-1042). */
export const InvoiceNumberSchema = z.string().trim().regex(/^INV-\d{1,10}$/, "looks like INV-1042").register(recordReferences, { names: "invoice" });

/** A customer's reference (CUST-001). */
export const CustomerRefSchema = z.string().trim().min(1).max(64).register(recordReferences, { names: "customer" });

/** A tenant data set's name (storage-buckets). */
export const DatasetNameSchema = z.string().trim().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, "a data set name like storage-buckets").register(recordReferences, { names: "dataset" });

/** The fields of each kind of record a snapshot may hold. */
const INVOICE_FIELDS = {
  status: (i: InvoiceRow) => i.status,
  currency: (i: InvoiceRow) => i.currency,
  amount_due_minor: (i: InvoiceRow) => i.amountDueMinor,
  amount_paid_minor: (i: InvoiceRow) => i.amountPaidMinor,
  amount_refunded_minor: (i: InvoiceRow) => i.amountRefundedMinor,
  due_date: (i: InvoiceRow) => new Date(i.dueDate).toISOString().slice(0, 10),
  customer_ref: (i: InvoiceRow) => i.customer.externalRef,
} satisfies Record<string, (row: InvoiceRow) => JsonValue>;

type CustomerFacts = Omit<CustomerRow, "invoices">;
const CUSTOMER_FIELDS = {
  name: (c: CustomerFacts) => c.name,
  email: (c: CustomerFacts) => c.email,
  verified_domains: (c: CustomerFacts) => c.verifiedDomains,
  opt_out: (c: CustomerFacts) => c.optOut,
} satisfies Record<string, (row: CustomerFacts) => JsonValue>;

export type InvoiceField = keyof typeof INVOICE_FIELDS;
export type CustomerField = keyof typeof CUSTOMER_FIELDS;

/**
 * One record the decision rests on. `key`: where its fields sit in the snapshot (absent: the
 * snapshot itself, for a tool that rests on one record of its own, like an upstream definition);
 * `arg`: the argument that names it (absent for a record the tool itself names); `through`: named
 * by another record the argument names (an invoice's customer). The first reference of a key
 * whose argument is present fills it.
 */
export type StateReference =
  | { key: string; entity: "invoice"; arg: string; fields: readonly InvoiceField[] }
  | { key: string; entity: "customer"; arg: string; through?: "invoice"; fields: readonly CustomerField[] }
  | { key: string; entity: "dataset"; arg: string; fields: readonly string[] }
  | { key?: undefined; entity: "upstream_tool"; arg?: undefined; fields: readonly string[] };

/** The references this module reads itself (data sets and upstream definitions have readers of their own). */
type RowReference = Extract<StateReference, { entity: "invoice" | "customer" }>;

/** What a snapshot read is given (ReadContext in tool.ts, which imports this file). */
type ReadContext = { q: Queryable; tenantId: string; lock?: boolean };

function pick<R>(row: R, readers: Record<string, (row: R) => JsonValue>, fields: readonly string[]): JsonObject {
  return Object.fromEntries(fields.map((field) => [field, readers[field](row)]));
}

function named(args: JsonObject, ref: RowReference): string | null {
  const value = args[ref.arg];
  return typeof value === "string" ? value : null;
}

/** The references that apply to these arguments: per key, the first whose argument is present. */
function applicable(refs: readonly RowReference[], args: JsonObject): RowReference[] {
  const seen = new Set<string>();
  return refs.filter((ref) => {
    if (seen.has(ref.key) || named(args, ref) === null) return false;
    seen.add(ref.key);
    return true;
  });
}

function build(refs: RowReference[], args: JsonObject, invoice: (n: string) => InvoiceRow, customer: (ref: string) => CustomerFacts): JsonObject | null {
  if (refs.length === 0) return null;
  return Object.fromEntries(refs.map((ref) => {
    const name = named(args, ref)!;
    if (ref.entity === "invoice") return [ref.key, pick(invoice(name), INVOICE_FIELDS, ref.fields)];
    const row = ref.through === "invoice" ? invoice(name).customer : customer(name);
    return [ref.key, { ref: row.externalRef, ...pick(row, CUSTOMER_FIELDS, ref.fields) }];
  }));
}

/**
 * A tool's `snapshot` and `snapshots` from its declared references: exactly the declared fields of
 * each record named, read with `lock` under the vote's or the claim's lock; not_found for a record
 * that is not there.
 */
export function declaredStateReads(refs: readonly RowReference[]) {
  return {
    async snapshot(ctx: ReadContext, args: JsonObject): Promise<JsonObject | null> {
      const use = applicable(refs, args);
      const invoices = new Map<string, InvoiceRow>();
      const customers = new Map<string, CustomerFacts>();
      for (const ref of use) {
        const name = named(args, ref)!;
        if (ref.entity === "invoice" || ref.through === "invoice") {
          if (!invoices.has(name)) invoices.set(name, await findInvoice(ctx, name));
        } else if (!customers.has(name)) {
          const row = await readCustomer(ctx.q, { tenantId: ctx.tenantId, externalRef: name, lock: ctx.lock });
          if (!row) throw notFound(`Customer ${name}`);
          customers.set(name, row);
        }
      }
      return build(use, args, (n) => invoices.get(n)!, (c) => customers.get(c)!);
    },
    /** The same for many argument sets: one read of the invoices and one of the customers they name. Never locks. */
    async snapshots(ctx: Omit<ReadContext, "lock">, all: JsonObject[]): Promise<Array<JsonObject | null | Error>> {
      const uses = all.map((args) => applicable(refs, args));
      const numbers = [...new Set(uses.flatMap((use, i) => use.flatMap((ref) => (ref.entity === "invoice" || ref.through === "invoice" ? [named(all[i], ref)!] : []))))];
      const refsNamed = [...new Set(uses.flatMap((use, i) => use.flatMap((ref) => (ref.entity === "customer" && !ref.through ? [named(all[i], ref)!] : []))))];
      const invoiceRows = await findInvoices(ctx, numbers);
      const invoices = new Map(numbers.map((n, i) => [n, invoiceRows[i]]));
      const customers = new Map((await readCustomers(ctx.q, { tenantId: ctx.tenantId, externalRefs: refsNamed })).map((c) => [c.externalRef, c]));
      const invoiceOf = (n: string) => {
        const row = invoices.get(n)!;
        if (row instanceof Error) throw row;
        return row;
      };
      const customerOf = (c: string) => {
        const row = customers.get(c);
        if (!row) throw notFound(`Customer ${c}`);
        return row;
      };
      // Each action's outcome on its own: one missing record fails only the actions that name it.
      return all.map((args, i) => {
        try {
          return build(uses[i], args, invoiceOf, customerOf);
        } catch (error) {
          return error instanceof Error ? error : new Error(String(error));
        }
      });
    },
  };
}

/**
 * The top-level arguments of a schema that name a record, and the kind each names (through
 * optional, default and array wrappers): what the coverage test holds every tool's declaration to.
 */
export function recordArguments(schema: z.ZodType): Array<{ arg: string; names: RecordKind }> {
  if (!(schema instanceof z.ZodObject)) return [];
  return Object.entries(schema.shape as Record<string, z.ZodType>).flatMap(([arg, field]) => {
    const names = referenceKind(field);
    return names ? [{ arg, names }] : [];
  });
}

function referenceKind(schema: z.ZodType): RecordKind | null {
  const marked = recordReferences.get(schema);
  if (marked) return marked.names;
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable || schema instanceof z.ZodDefault) {
    return referenceKind(schema.unwrap() as z.ZodType);
  }
  if (schema instanceof z.ZodArray) return referenceKind(schema.element as z.ZodType);
  return null;
}

/**
 * The record-naming arguments a tool's declaration leaves uncovered: each must be the `arg` of a
 * reference of its kind. Empty for a covered tool (and for a read, whose result is the state itself).
 */
export function uncoveredArguments(tool: { args: z.ZodType; classes: readonly string[]; restsOn?: readonly StateReference[] }): string[] {
  if (tool.classes.every((c) => c === "read" || c === "pii")) return [];
  return recordArguments(tool.args)
    .filter(({ arg, names }) => !(tool.restsOn ?? []).some((ref) => ref.arg === arg && ref.entity === names && !("through" in ref && ref.through)))
    .map(({ arg, names }) => `${arg} (${names})`);
}
