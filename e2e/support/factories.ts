import { createTestTenant, TEST_PASSWORD, type TestTenant } from "@/tests/factories";
import { e2eDb } from "@/e2e/support/runtime";

export { TEST_PASSWORD };
export type { TestTenant };

/** Each test seeds its own tenant and members (unique emails), never sharing rows. */
export function seedTenant(): Promise<TestTenant> {
  return createTestTenant(e2eDb());
}
