import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import net from "node:net";
import { expect, test } from "@playwright/test";
import { RUNTIME_FILE } from "@/e2e/support/config";
import { signIn } from "@/e2e/support/auth";
import { actionRow, propose, seedTenant, TEST_PASSWORD, approveOnActionPage } from "@/e2e/review/fixtures";
import { processEnv } from "@/lib/env";
import { consoleServerCommand } from "@/lib/server/console-command";

// The bundled set-up: `npm start` sets NEXTAUTH_URL to http://localhost:PORT, and a person opens
// the console at http://127.0.0.1:PORT instead. A second console on the same build and database,
// configured exactly so (no COUNTERSIGN_PUBLIC_ORIGINS), serves these tests.
let console2: ChildProcess | undefined;
let port = 0;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port: found } = server.address() as net.AddressInfo;
      server.close(() => resolve(found));
    });
  });
}

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(120_000);
  port = await freePort();
  const { databaseUrl } = JSON.parse(readFileSync(RUNTIME_FILE, "utf8")) as { databaseUrl: string };
  const server = consoleServerCommand({ root: process.cwd(), port, hostname: "127.0.0.1" });
  console2 = spawn(server.command, server.args, {
    cwd: process.cwd(),
    stdio: "ignore",
    env: {
      ...processEnv(),
      DATABASE_URL: databaseUrl,
      NEXTAUTH_URL: `http://localhost:${port}`,
      COUNTERSIGN_PUBLIC_ORIGINS: undefined,
      COUNTERSIGN_IN_PROCESS_WORKER: undefined,
      NEXTAUTH_SECRET: "e2e-secret-not-for-production-use-0123456789",
    },
  });
  await expect.poll(async () => (await fetch(`http://127.0.0.1:${port}/api/health`).catch(() => null))?.status ?? 0, { timeout: 90_000 }).toBe(200);
});

test.afterAll(() => {
  console2?.kill("SIGTERM");
});

test("opened at 127.0.0.1 while configured at localhost, the console approves and runs code in the sandbox", async ({ browser }) => {
  test.slow(); // a real sandbox run on a shared machine
  const tenant = await seedTenant();
  const { id } = await propose(tenant, "run_python", { code: "print('total', sum([1, 2, 3]))", language: "python" }, { reason: "Add up the rows" });
  const context = await browser.newContext({ baseURL: `http://127.0.0.1:${port}` });
  const page = await context.newPage();
  await signIn(page, tenant.users.reviewer.email, TEST_PASSWORD);
  await page.goto(`/actions/${id}`);
  await approveOnActionPage(page);
  await page.getByRole("button", { name: "Run in sandbox" }).click();
  const output = page.getByLabel("Sandbox output");
  await expect(output).toContainText("total 6", { timeout: 90_000 });
  await expect(output).toContainText("Finished: succeeded", { timeout: 30_000 });
  await expect(output).not.toContainText("another origin");
  expect((await actionRow(id)).status).toBe("succeeded");
  await context.close();
});

test("a foreign origin is still refused, even another port on the same machine", async ({ browser }) => {
  const tenant = await seedTenant();
  const { id, payloadHash } = await propose(tenant, "run_python", { code: "print(1)", language: "python" });
  const context = await browser.newContext({ baseURL: `http://127.0.0.1:${port}` });
  await signIn(await context.newPage(), tenant.users.reviewer.email, TEST_PASSWORD);
  for (const origin of [`http://127.0.0.1:${port + 1}`, "http://evil.example", `https://localhost:${port}`]) {
    const res = await context.request.post(`/api/actions/${id}/execute`, { headers: { Origin: origin }, data: { payloadHash } });
    expect(res.status(), origin).toBe(403);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe(
      `Requests from another origin are refused; open the console at its own address (http://localhost:${port}).`);
  }
  expect((await actionRow(id)).status).toBe("pending");
  await context.close();
});
