import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": import.meta.dirname } },
  test: {
    include: ["lib/**/*.test.ts", "tests/**/*.test.ts", "scripts/**/*.test.ts"],
    environment: "node",
    globalSetup: ["./tests/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Test files share one PostgreSQL cluster but each gets its own database.
    fileParallelism: true,
    maxWorkers: 2,
    // The tests' upstream MCP servers and webhook receivers listen on loopback, which the console
    // refuses unless the operator allows it (upstream-destination.ts, destination-guard.ts).
    // One compute thread per test file (compute-pool.test.ts tests several): each thread loads every
    // task module (policy, pre-scan parser, validators) as it starts: a second thread
    // costs each file about 2 CPU-seconds more (six approval files on a quiet machine), ~100 files.
    env: { MCP_PRIVATE_HOSTS: "127.0.0.1", WEBHOOK_PRIVATE_HOSTS: "127.0.0.1", COUNTERSIGN_COMPUTE_THREADS: "1" },
  },
});
