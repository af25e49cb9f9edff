/**
 * `npm run witness -- [options]`: a C2SP tlog-witness for Countersign audit logs
 * (lib/audit/transparency/witness-server.ts). A separate program, meant to run on a machine the
 * console's operators do not control; it is configured by its own flags and WITNESS_* variables,
 * not by the console's lib/env.ts.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { parseSignerKey, parseVerifierKey, noteSigner, signerKey, SIG_COSIGNATURE_V1, SIG_ED25519, type VerifierKey } from "@/lib/audit/transparency/signed-note";
import { startWitnessServer } from "@/lib/audit/transparency/witness-server";

const HELP = `Usage: npm run witness -- [options]

A C2SP tlog-witness (https://c2sp.org/tlog-witness) for Countersign audit logs.
  POST /add-checkpoint   cosign a checkpoint consistent with the last one cosigned for its origin
  GET  /                 this witness's verifier key (cosignature/v1)
  GET  /latest?origin=…  the last checkpoint cosigned for an origin (JSON, for debugging)

Options (each also read from the environment variable shown):
  --port <n>          port to listen on (WITNESS_PORT, default 7380)
  --host <addr>       address to listen on (WITNESS_HOST, default 127.0.0.1)
  --state-dir <dir>   where the state file (cosigned.jsonl) lives (WITNESS_STATE_DIR, default .data/witness)
  --key-file <file>   the witness's private key, created 0600 on first start
                      (WITNESS_KEY_FILE, default <state-dir>/witness.key)
  --name <name>       the witness's key name, used when the key is created
                      (WITNESS_NAME, default witness.countersign.invalid/<random>)
  --log-key <vkey>    a trusted log verifier key <name>+<id>+<key>; repeatable
                      (WITNESS_LOG_KEYS, whitespace-separated). A key named K vouches for the
                      checkpoints of origins K/<anything> (the console signs origin <K>/<tenant id>).
  --help              this text
`;

function fail(message: string): never {
  console.error(`✖ ${message}`);
  process.exit(2);
}

let flags: ReturnType<typeof parse>;
function parse() {
  return parseArgs({
    options: {
      port: { type: "string" },
      host: { type: "string" },
      "state-dir": { type: "string" },
      "key-file": { type: "string" },
      name: { type: "string" },
      "log-key": { type: "string", multiple: true },
      help: { type: "boolean" },
    },
    strict: true,
  });
}
try {
  flags = parse();
} catch (error) {
  fail(`${(error as Error).message}\n\n${HELP}`);
}
if (flags.values.help) {
  console.log(HELP);
  process.exit(0);
}

// The witness's own configuration, separate from the console's (see the header).
const env = process.env;
const pick = (flag: string | undefined, name: string) => flag ?? (env[name]?.trim() || undefined);

const portText = pick(flags.values.port, "WITNESS_PORT") ?? "7380";
const port = Number(portText);
if (!Number.isInteger(port) || port < 0 || port > 65_535) fail(`--port ${JSON.stringify(portText)} is not a port number`);
const host = pick(flags.values.host, "WITNESS_HOST") ?? "127.0.0.1";
const stateDir = path.resolve(pick(flags.values["state-dir"], "WITNESS_STATE_DIR") ?? ".data/witness");
const keyFile = path.resolve(pick(flags.values["key-file"], "WITNESS_KEY_FILE") ?? path.join(stateDir, "witness.key"));
const requestedName = pick(flags.values.name, "WITNESS_NAME");
const logKeyTexts = flags.values["log-key"] ?? (env.WITNESS_LOG_KEYS ?? "").split(/\s+/).filter(Boolean);

const logKeys: VerifierKey[] = [];
for (const text of logKeyTexts) {
  try {
    const key = parseVerifierKey(text);
    if (key.type !== SIG_ED25519) fail(`--log-key ${key.name}: a log key is an Ed25519 note key (type 0x01), not a cosignature key`);
    logKeys.push(key);
  } catch (error) {
    fail(`--log-key ${JSON.stringify(text)}: ${(error as Error).message}`);
  }
}
if (logKeys.length === 0) fail(`no trusted log key: give at least one --log-key (the console prints its log verifier key)\n\n${HELP}`);

mkdirSync(stateDir, { recursive: true, mode: 0o700 });

/** The key file holds a golang.org/x/mod/sumdb/note signer key; its seed is used as the cosignature/v1 key. */
function loadOrCreateKey() {
  let text: string;
  try {
    text = readFileSync(keyFile, "utf8").trim();
    const mode = statSync(keyFile).mode & 0o077;
    if (mode !== 0) console.warn(`! ${keyFile} is readable by others (mode ${(statSync(keyFile).mode & 0o777).toString(8)}); chmod 600 it`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") fail(`cannot read ${keyFile}: ${(error as Error).message}`);
    const name = requestedName ?? `witness.countersign.invalid/${randomBytes(4).toString("hex")}`;
    text = signerKey(name, randomBytes(32));
    mkdirSync(path.dirname(keyFile), { recursive: true, mode: 0o700 });
    writeFileSync(keyFile, `${text}\n`, { mode: 0o600, flag: "wx" });
    console.log(`created witness key ${keyFile}`);
  }
  let parsed;
  try {
    parsed = parseSignerKey(text);
  } catch (error) {
    fail(`${keyFile}: ${(error as Error).message}`);
  }
  if (requestedName && requestedName !== parsed.name) fail(`--name ${requestedName} differs from the key file's name ${parsed.name}; a witness's name is part of its key`);
  const seed = Buffer.from(text.split("+").slice(4).join("+"), "base64").subarray(1);
  return noteSigner(parsed.name, seed, SIG_COSIGNATURE_V1);
}

const signer = loadOrCreateKey();
const running = await startWitnessServer({ signer, logKeys, stateFile: path.join(stateDir, "cosigned.jsonl"), port, host }).catch((error: Error) =>
  fail(`cannot start: ${error.message}`),
);
console.log(`witness verifier key: ${running.witness.verifierKey}`);
console.log(`listening on ${running.url}  (POST ${running.url}/add-checkpoint)`);
console.log(`trusting log keys: ${logKeys.map((k) => k.name).join(", ")}`);

const stop = () => {
  void running.close().then(() => process.exit(0));
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
