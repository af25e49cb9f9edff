import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": import.meta.dirname } },
  test: {
    include: ["lib/**/*.test.ts", "tests/**/*.test.ts", "scripts/**/*.test.ts"],
    environment: "node",
    globalSetup: ["./tests/global-setup.ts"],
    testTimeout: 60_000,
    // Each payload's checks run on the compute pool within a running-time budget (2 s by default).
    // On a loaded 2-core machine, where the pool's threads run niced below everything else, an
    // ordinary proposal's checks can take longer than that, and any test that proposes something
    // would fail as too_complex by chance. The suite's budget is one no machine's speed decides;
    // the tests about the budget set their own (1 ms, 300 ms, an explicit budgetMs).
    env: { COUNTERSIGN_COMPUTE_BUDGET_MS: "30000" },
    hookTimeout: 120_000,
    // Test files share one PostgreSQL cluster but each gets its own database.
    fileParallelism: true,
    maxWorkers: 2,
  },
});
