import path from "node:path";
import { readEnv } from "@/lib/env";

export const E2E_PORT = readEnv("E2E_PORT") ?? 3917;
export const RUNTIME_FILE = readEnv("E2E_RUNTIME_FILE") ?? path.join(process.cwd(), "e2e", ".runtime.json");
