import path from "node:path";

export const E2E_PORT = Number(process.env.E2E_PORT ?? 3917);
export const RUNTIME_FILE = process.env.E2E_RUNTIME_FILE ?? path.join(process.cwd(), "e2e", ".runtime.json");
