import { expect, type APIRequestContext, type Page } from "@playwright/test";

/** Signs in through next-auth's credentials endpoint; the cookie lands in the request's context. */
export async function signInViaApi(request: APIRequestContext, email: string, password: string): Promise<void> {
  const csrf = await request.get("/api/auth/csrf");
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const res = await request.post("/api/auth/callback/credentials", {
    form: { csrfToken, email, password, json: "true" },
    maxRedirects: 0,
  });
  expect([200, 302]).toContain(res.status());
  const session = await (await request.get("/api/auth/session")).json();
  expect(session?.user?.id, `sign-in as ${email} failed`).toBeTruthy();
}

export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await signInViaApi(page.request, email, password);
}

/** Signs in through the form, as a person would. */
export async function signInViaForm(page: Page, email: string, password: string): Promise<void> {
  await page.goto("/signin");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}
