import { existsSync } from "node:fs";
import { defineConfig } from "@playwright/test";
import { E2E_PORT } from "./e2e/support/config";
import { readEnv } from "./lib/env";

// The audit log's key for the e2e server and the tests' own writes (they must agree); not for production.
process.env.AUDIT_SIGNING_KEY ??= Buffer.alloc(32, 7).toString("base64");
// The specs' upstream MCP servers and webhook receivers listen on loopback, which the console
// refuses unless the operator allows it: for the e2e server and the tests' own calls.
process.env.MCP_PRIVATE_HOSTS ??= "127.0.0.1";
process.env.WEBHOOK_PRIVATE_HOSTS ??= "127.0.0.1";

// Debian's Chromium (no browser downloads here); see TOOLCHAIN.md for the flags. Its headless shell
// by default, as Playwright's own headless runs use: the full browser's extra processes (GPU,
// compositor) cost the suite a third more browser CPU for pages no one looks at.
const HEADLESS_SHELL = "/usr/bin/chromium-headless-shell";
const chromium = readEnv("CHROMIUM_PATH") ?? (existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : "/usr/bin/chromium");

export default defineConfig({
  testDir: "e2e",
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: true,
  workers: 2,
  retries: 0,
  reporter: [["list"]],
  use: {
    baseURL: `http://127.0.0.1:${E2E_PORT}`,
    // A failed test keeps its trace (DOM snapshots, actions, network, console) and one screenshot;
    // the trace's screencast would cost every passing test its frames for nothing.
    trace: { mode: "retain-on-failure", screenshots: false },
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: chromium,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
    },
  },
  projects: [{ name: "chromium", use: { browserName: "chromium", viewport: { width: 1366, height: 900 } } }],
  webServer: {
    command: "node --import tsx e2e/serve.ts",
    url: `http://127.0.0.1:${E2E_PORT}/api/health`,
    timeout: 180_000,
    reuseExistingServer: false,
    stdout: "ignore",
    stderr: "pipe",
  },
});
