/**
 * `npm run audit:resolve -- <tenant id> --note "<what was found and done>"`: an operator's word
 * that the evidence failures the console remembers for a tenant (lib/audit/audit-state-file.ts,
 * shown red on /audit) were looked into. Run it where the console keeps its signing key, with the
 * same AUDIT_* settings: the record lives beside the key, out of the database's reach. A failure
 * that is still there is found and shown again by the next check.
 */
import { parseArgs } from "node:util";
import { auditOrigin } from "@/lib/audit/audit-keys";
import { auditStateFile, resolveAlarms, unresolvedAlarms } from "@/lib/audit/audit-state-file";

const USAGE = 'usage: npm run audit:resolve -- <tenant id> --note "<what was found and done>"';

function fail(message: string): never {
  console.error(`✖ ${message}`);
  process.exit(2);
}

let parsed: ReturnType<typeof parse>;
function parse() {
  return parseArgs({ options: { note: { type: "string" } }, allowPositionals: true });
}
try {
  parsed = parse();
} catch (error) {
  fail(`${(error as Error).message}\n${USAGE}`);
}
const [tenantId, ...rest] = parsed.positionals;
const note = parsed.values.note?.trim();
if (!tenantId || rest.length > 0 || !/^[0-9a-f-]{36}$/i.test(tenantId)) fail(USAGE);
if (!note) fail(`say what was found and done with --note\n${USAGE}`);

const log = auditOrigin(tenantId.toLowerCase());
const open = unresolvedAlarms(log);
if (open.length === 0) {
  console.log(`Nothing to resolve for ${log} in ${auditStateFile()}.`);
  process.exit(0);
}
for (const alarm of open) console.log(`- ${alarm.at} ${alarm.source}: ${alarm.problems[0]?.message ?? ""}`);
resolveAlarms(log, note);
console.log(`✔ Resolved ${open.length} recorded failure${open.length === 1 ? "" : "s"} of ${log} (${auditStateFile()}).`);
