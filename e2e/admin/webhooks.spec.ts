import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { Webhook } from "standardwebhooks";
import { signIn } from "@/e2e/support/auth";
import { TEST_PASSWORD } from "@/e2e/support/factories";
import { seedAgent } from "@/e2e/api/agent-fixtures";
import { expectNoSeriousA11yViolations } from "@/e2e/tasks/task-helpers";

test.describe("webhooks", () => {
  test("an admin adds an endpoint (a private host only when allowed), the console delivers signed notices of new actions, and a delivery can be sent again", async ({ page, request }) => {
    test.slow();
    const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
    const receiver = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
      req.on("end", () => {
        received.push({ headers: req.headers, body });
        res.statusCode = 204;
        res.end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    try {
      const agent = await seedAgent(["refund_invoice"]);
      await signIn(page, agent.tenant.users.admin.email, TEST_PASSWORD);
      await page.goto("/admin/webhooks");
      const form = page.getByRole("form", { name: "Add a webhook endpoint" });
      await form.getByLabel("Endpoint URL").fill(url);
      await form.getByRole("button", { name: "Add endpoint" }).click();
      await expect(form.getByRole("alert")).toContainText("loopback, private or link-local");

      await form.getByLabel(/Allow this host/).check();
      await form.getByRole("button", { name: "Add endpoint" }).click();
      const secret = await page.getByLabel("Signing secret").inputValue();
      expect(secret).toMatch(/^whsec_/);
      await expect(page.getByRole("region", { name: "Endpoints" })).toContainText(url);
      await expectNoSeriousA11yViolations(page);

      const submitted = await request.post("/api/v1/actions", {
        data: { tool: "refund_invoice", args: { invoice_number: "INV-1044", amount_minor: 5_000, reason: "Duplicate charge" }, reason: "Customer asked" },
        headers: agent.headers,
      });
      expect(submitted.status()).toBe(201);
      const { id } = (await submitted.json()) as { id: string };
      await expect.poll(() => received.length, { timeout: 30_000 }).toBe(1);
      const payload = new Webhook(secret).verify(received[0].body, received[0].headers as Record<string, string>) as { type: string; data: { actionId: string } };
      expect(payload).toMatchObject({ type: "action.pending", data: { actionId: id } });

      await page.reload();
      const log = page.getByRole("region", { name: "Delivery log" });
      await expect(log.getByRole("row", { name: /action\.pending/ })).toContainText("delivered");
      await log.getByRole("button", { name: /Send again/ }).click();
      await expect.poll(() => received.length, { timeout: 30_000 }).toBe(2);
      expect(received[1].headers["webhook-id"]).toBe(received[0].headers["webhook-id"]);
    } finally {
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });
});
