import { expect, test } from "@playwright/test";
import { signIn } from "@/e2e/support/auth";
import { seedTenant, TEST_PASSWORD } from "@/e2e/support/factories";
import { e2eDb } from "@/e2e/support/runtime";

test.describe("reviewer email preference", () => {
  test("a reviewer switches to a digest on /account: saved for this organisation only, audited, and shown when the page is opened again", async ({ page }) => {
    const tenant = await seedTenant();
    const user = tenant.users.reviewer;
    await signIn(page, user.email, TEST_PASSWORD);
    await page.goto("/account");
    const form = page.getByRole("form", { name: "Reviewer emails" });
    await expect(form.getByRole("radio", { name: /Immediately/ })).toBeChecked();

    await form.getByRole("radio", { name: /Digest/ }).check();
    await form.getByRole("button", { name: "Save email preference" }).click();
    await expect(form.getByRole("status")).toContainText("Saved: a digest every 60 minutes");

    const membership = await e2eDb().membership.findFirstOrThrow({ where: { tenantId: tenant.id, userId: user.id } });
    expect(membership.emailMode).toBe("digest");
    // Another member of the same organisation is untouched.
    const other = await e2eDb().membership.findFirstOrThrow({ where: { tenantId: tenant.id, userId: tenant.users.reviewer2.id } });
    expect(other.emailMode).toBe("immediate");
    expect(await e2eDb().auditEvent.count({ where: { tenantId: tenant.id, type: "member.email_mode_changed", actorId: user.id } })).toBe(1);

    await page.reload();
    await expect(page.getByRole("form", { name: "Reviewer emails" }).getByRole("radio", { name: /Digest/ })).toBeChecked();
  });
});
