/**
 * The console's browser-side protections. Pages get a Content-Security-Policy with a fresh nonce per
 * request (proxy.ts): Next.js reads the nonce from the request's policy and puts it on its own
 * scripts, and 'strict-dynamic' lets those load the rest, so no other script runs — no
 * 'unsafe-inline' for scripts. frame-ancestors 'none' (and X-Frame-Options for old browsers) keeps
 * every page out of frames, so a decision cannot be clickjacked. API responses are never documents
 * to render: their policy allows nothing at all.
 */
export function pageContentSecurityPolicy(nonce: string, options: { dev: boolean }): string {
  return [
    "default-src 'self'",
    // 'unsafe-eval' only in development, where React rebuilds server error stacks with eval.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${options.dev ? " 'unsafe-eval'" : ""}`,
    `style-src 'self' 'nonce-${nonce}'`,
    // Server-rendered style attributes (bar widths); they cannot run script.
    "style-src-attr 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    // No upgrade-insecure-requests: the demo and tests serve plain http on a local address.
  ].join("; ");
}

/** A 128-bit random nonce, base64 (the form the CSP grammar takes). */
export function newNonce(): string {
  return btoa(crypto.randomUUID());
}
