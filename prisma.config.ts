import path from "node:path";
import { defineConfig } from "prisma/config";
import { PrismaPg } from "@prisma/adapter-pg";

// The JavaScript schema engine with the pg driver adapter works fully offline (see TOOLCHAIN.md);
// the native engines Prisma would otherwise download are unreachable on our machines.
export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: path.join("prisma", "schema.prisma"),
  migrations: { path: path.join("prisma", "migrations") },
  async adapter() {
    const connectionString = process.env.DATABASE_URL;
    if (!connectionString) throw new Error("DATABASE_URL is not set");
    return new PrismaPg({ connectionString });
  },
});
