/**
 * Pages get a Content-Security-Policy with a fresh nonce per request (proxy.ts), which Next.js puts
 * on its own scripts, and 'strict-dynamic' lets those load the rest: no 'unsafe-inline' scripts.
 * frame-ancestors 'none' (and X-Frame-Options) keeps decisions from being clickjacked. API responses
 * are never documents: their policy allows nothing.
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
