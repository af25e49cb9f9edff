import { spawn } from "node:child_process";
import path from "node:path";
import { processEnv } from "@/lib/env";

/** Applies prisma/migrations with `prisma migrate deploy` (the offline JavaScript engine). */
export async function migrateDatabase(databaseUrl: string, cwd = process.cwd()): Promise<void> {
  const prismaBin = path.join(cwd, "node_modules", "prisma", "build", "index.js");
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [prismaBin, "migrate", "deploy"], {
      cwd,
      env: { ...processEnv(), DATABASE_URL: databaseUrl },
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
}
