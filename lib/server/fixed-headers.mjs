// The response headers that never vary, in one place: next.config.js sends them with every
// response Next.js answers, and the console's own server (lib/server/console-server.ts) with the
// few it answers itself (/api/health). Plain JavaScript so that next.config.js can import it.

/** JSON and files only: nothing from an API response may load, run or be framed. */
export const API_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** Sent with every response, pages, API and static files alike. */
export const EVERY_RESPONSE_HEADERS = [
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
];

/** Sent with every /api response, besides EVERY_RESPONSE_HEADERS. */
export const API_RESPONSE_HEADERS = [{ key: "Content-Security-Policy", value: API_CONTENT_SECURITY_POLICY }];
