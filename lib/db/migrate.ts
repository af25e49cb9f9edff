import { spawn } from "node:child_process";
import path from "node:path";
import { grantAppRole } from "@/lib/db/grant-app-role";
import { processEnv } from "@/lib/env";

/**
 * Applies prisma/migrations as the tables' owner, then the grant step (grant-app-role.ts) so new
 * tables get the app role's rights at once. `appRole: null` only for a legacy single-role database,
 * where the app connects as the owner.
 */
export async function migrateDatabase(ownerUrl: string, grantTo: { appRole: string | null }, cwd = process.cwd()): Promise<void> {
  const prismaBin = path.join(cwd, "node_modules", "prisma", "build", "index.js");
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [prismaBin, "migrate", "deploy"], {
      cwd,
      env: { ...processEnv(), DATABASE_URL: ownerUrl },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`prisma migrate deploy failed (exit ${code}):\n${output}`)),
    );
  });
  if (grantTo.appRole) await grantAppRole(ownerUrl, grantTo.appRole);
}
