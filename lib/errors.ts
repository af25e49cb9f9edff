import { z } from "zod";
import { InvalidPayloadError } from "@/lib/canonical/invalid-payload-error";

/**
 * An expected failure with a message meant for the person or program that caused it. Anything
 * else that is thrown becomes a generic message, and its stack goes to the server log only.
 */
export class AppError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number = 400,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "AppError";
  }
}

/**
 * An effect that was sent but whose answer could not be read, with a message safe to show: the
 * execution is recorded `unknown` (it may have happened) with this message instead of a generic one.
 */
export class OutcomeUnknownError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OutcomeUnknownError";
  }
}

// Refusals a domain function has already written to the audit log (usually in the transaction
// that refused). The request boundary (lib/server/boundary.ts) audits every other refusal, so each
// refused attempt is recorded once.
const audited = new WeakSet<object>();

/** Marks a refusal as recorded in the audit log; returns it, for `throw markAudited(error)`. */
export function markAudited<E>(error: E): E {
  if (typeof error === "object" && error !== null) audited.add(error);
  return error;
}

export function wasAudited(error: unknown): boolean {
  return typeof error === "object" && error !== null && audited.has(error);
}

export const notFound = (what = "That item") => new AppError("not_found", `${what} was not found.`, 404);
export const forbiddenError = (message = "Your roles do not allow this.") => new AppError("forbidden", message, 403);

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

export type PublicError = { code: string; message: string; details?: unknown };

/** What may leave the server for an error, without logging anything. */
export function publicErrorOf(error: unknown): { status: number; body: PublicError } {
  if (isAppError(error)) {
    return { status: error.status, body: { code: error.code, message: error.message, details: error.details } };
  }
  if (error instanceof InvalidPayloadError) {
    const status = error.code === "payload_too_large" ? 413 : 400;
    return { status, body: { code: `invalid_payload.${error.code}`, message: error.message, details: { path: error.path ?? null } } };
  }
  return { status: 500, body: { code: "internal", message: "Something went wrong on our side. It has been logged." } };
}

/** What may leave the server for an error. Unexpected errors are logged here, once. */
export function toPublicError(error: unknown, context: string): { status: number; body: PublicError } {
  const out = publicErrorOf(error);
  if (out.status === 500) console.error(`[countersign] unexpected error in ${context}:`, error);
  return out;
}

/** How many of an input's problems a message lists, and how long it may get: a body with thousands of bad keys gets a short answer. */
export const MAX_LISTED_ISSUES = 20;
const MAX_DESCRIPTION = 2_000;

type Issue = z.core.$ZodIssue;

/**
 * The problems of invalid input, each failed union replaced by those of the alternative the input
 * came closest to: "language is missing" rather than zod's bare "Invalid input".
 */
export function inputIssues(error: z.ZodError): Issue[] {
  return error.issues.flatMap((issue) => resolveUnion(issue, []));
}

function resolveUnion(issue: Issue, prefix: PropertyKey[]): Issue[] {
  const path = [...prefix, ...issue.path];
  if (issue.code !== "invalid_union" || issue.errors.length === 0) return [{ ...issue, path }];
  const ranked = issue.errors
    .map((branch) => ({ branch, strangers: branch.some((i) => i.code === "unrecognized_keys") ? 1 : 0 }))
    .sort((x, y) => x.strangers - y.strangers || x.branch.length - y.branch.length);
  return ranked[0].branch.flatMap((inner) => resolveUnion(inner, path));
}

/** The first problems of invalid input, in words (zod's own format), and how many more there are. */
export function describeInvalid(error: z.ZodError): string {
  const issues = inputIssues(error);
  let text = z.prettifyError(new z.ZodError(issues.slice(0, MAX_LISTED_ISSUES)));
  if (text.length > MAX_DESCRIPTION) text = `${text.slice(0, MAX_DESCRIPTION - 1)}…`;
  return issues.length > MAX_LISTED_ISSUES ? `${text}\n… and ${issues.length - MAX_LISTED_ISSUES} more problems` : text;
}
