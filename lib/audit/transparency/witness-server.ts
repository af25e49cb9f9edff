import { open, readFile, truncate, type FileHandle } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import path from "node:path";
import { EMPTY_ROOT, verifyConsistency } from "./merkle";
import {
  NoteError,
  SIG_COSIGNATURE_V1,
  SIG_ED25519,
  cosign,
  parseCheckpoint,
  parseNote,
  strictBase64,
  verifierKey,
  verifyNote,
  type Checkpoint,
  type NoteSigner,
  type VerifierKey,
} from "./signed-note";

/**
 * A C2SP tlog-witness (c2sp.org/tlog-witness): `POST /add-checkpoint` cosigns a checkpoint a
 * trusted log key signed that is consistent with the last one it cosigned for its origin, fsyncing
 * it to its JSON-lines state file first, so a restart never forgets a tree it vouched for. A key
 * named K vouches for every origin `K/<tenant id>`. Status codes as the spec assigns them (409
 * answers the last size as text/x.tlog.size).
 */

export type WitnessOptions = {
  /** The witness's cosignature/v1 key (type 0x04). */
  signer: NoteSigner;
  /** Trusted Ed25519 log keys (type 0x01). */
  logKeys: readonly VerifierKey[];
  /** The JSON-lines file holding every checkpoint cosigned; created if absent. */
  stateFile: string;
  /** Unix seconds for cosignatures; the clock by default. */
  now?: () => number;
};

export type WitnessRecord = { origin: string; size: number; rootHash: Buffer; note: string; cosignedAt: number };

export type WitnessResponse = { status: number; contentType: string; body: string };

const MAX_REQUEST_BYTES = 256 * 1024;
// A consistency proof of a tree below 2^64 has at most 63 hashes (the spec's limit).
const MAX_PROOF_LINES = 63;
const OLD_LINE = /^old (0|[1-9][0-9]*)$/;

function text(status: number, body: string): WitnessResponse {
  return { status, contentType: "text/plain; charset=utf-8", body: body.endsWith("\n") ? body : body + "\n" };
}

type StateLine = { origin: string; size: number; root: string; note: string; cosignedAt: number };

/** Reads the state file: the latest record per origin. A torn last line (a crash mid-append, never answered) is cut off. */
async function loadState(file: string): Promise<Map<string, WitnessRecord>> {
  const state = new Map<string, WitnessRecord>();
  let content: string;
  try {
    content = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return state;
    throw error;
  }
  const lastNewline = content.lastIndexOf("\n");
  if (lastNewline + 1 !== content.length) {
    await truncate(file, Buffer.byteLength(content.slice(0, lastNewline + 1), "utf8"));
    content = content.slice(0, lastNewline + 1);
  }
  content.split("\n").forEach((line, i) => {
    if (line.length === 0) return;
    let parsed: StateLine;
    try {
      parsed = JSON.parse(line) as StateLine;
    } catch {
      throw new Error(`witness state ${file} line ${i + 1} is not JSON; refusing to start with a damaged state`);
    }
    const rootHash = strictBase64(parsed.root ?? "");
    if (typeof parsed.origin !== "string" || !Number.isSafeInteger(parsed.size) || !rootHash || rootHash.length !== 32) {
      throw new Error(`witness state ${file} line ${i + 1} is not a checkpoint record; refusing to start with a damaged state`);
    }
    const previous = state.get(parsed.origin);
    if (previous && previous.size > parsed.size) throw new Error(`witness state ${file} line ${i + 1} goes back from size ${previous.size} to ${parsed.size} for ${parsed.origin}`);
    state.set(parsed.origin, { origin: parsed.origin, size: parsed.size, rootHash, note: parsed.note, cosignedAt: parsed.cosignedAt });
  });
  return state;
}

export class Witness {
  readonly verifierKey: string;
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly options: WitnessOptions,
    private readonly state: Map<string, WitnessRecord>,
    private readonly file: FileHandle,
  ) {
    this.verifierKey = verifierKey(options.signer.name, options.signer.publicKey, SIG_COSIGNATURE_V1);
  }

  static async open(options: WitnessOptions): Promise<Witness> {
    if (options.signer.type !== SIG_COSIGNATURE_V1) throw new Error("the witness key must be a cosignature/v1 key (type 0x04)");
    const badLogKey = options.logKeys.find((k) => k.type !== SIG_ED25519);
    if (badLogKey) throw new Error(`log key ${badLogKey.name} is not an Ed25519 note key (type 0x01)`);
    const state = await loadState(options.stateFile);
    const file = await open(options.stateFile, "a", 0o600);
    // Make the file's creation itself durable.
    const dir = await open(path.dirname(options.stateFile), "r");
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
    return new Witness(options, state, file);
  }

  latest(origin: string): WitnessRecord | undefined {
    return this.state.get(origin);
  }

  async close(): Promise<void> {
    await this.queue.catch(() => undefined);
    await this.file.close();
  }

  /** Handles an add-checkpoint request body. Requests are decided one at a time, so check and store cannot interleave. */
  addCheckpoint(requestBody: string): Promise<WitnessResponse> {
    const run = this.queue.then(() => this.decide(requestBody));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async decide(requestBody: string): Promise<WitnessResponse> {
    const blank = requestBody.indexOf("\n\n");
    if (blank < 0) return text(400, "malformed request: expected the old size line, proof lines, a blank line and the checkpoint");
    const [oldLine, ...proofLines] = requestBody.slice(0, blank).split("\n");
    const noteText = requestBody.slice(blank + 2);
    const oldMatch = OLD_LINE.exec(oldLine);
    if (!oldMatch) return text(400, `malformed request: first line must be "old <size>"`);
    const oldSize = Number(oldMatch[1]);
    if (!Number.isSafeInteger(oldSize)) return text(400, "malformed request: old size too large");
    if (proofLines.length > MAX_PROOF_LINES) return text(400, `malformed request: more than ${MAX_PROOF_LINES} proof lines`);
    const proof: Buffer[] = [];
    for (const line of proofLines) {
      const hash = strictBase64(line);
      if (!hash || hash.length !== 32) return text(400, "malformed request: each proof line must be base64 of a 32-byte hash");
      proof.push(hash);
    }

    let checkpoint: Checkpoint;
    try {
      checkpoint = parseCheckpoint(parseNote(noteText).body);
    } catch (error) {
      if (error instanceof NoteError) return text(400, error.message);
      throw error;
    }
    const keys = this.options.logKeys.filter((k) => checkpoint.origin.startsWith(`${k.name}/`) && checkpoint.origin.length > k.name.length + 1);
    if (keys.length === 0) return text(404, `unknown origin ${JSON.stringify(checkpoint.origin)}: no trusted log key vouches for it`);
    let verifiedBy: number;
    try {
      verifiedBy = verifyNote(noteText, keys).verified.length;
    } catch (error) {
      if (error instanceof NoteError) return text(403, error.message);
      throw error;
    }
    if (verifiedBy === 0) return text(403, `the checkpoint carries no signature by a trusted key for ${checkpoint.origin}`);

    if (oldSize > checkpoint.size) return text(400, `old size ${oldSize} is larger than the checkpoint's size ${checkpoint.size}`);
    const latest = this.state.get(checkpoint.origin);
    const latestSize = latest?.size ?? 0;
    if (oldSize !== latestSize) return { status: 409, contentType: "text/x.tlog.size", body: `${latestSize}\n` };
    const latestRoot = latest?.rootHash ?? EMPTY_ROOT;
    if (checkpoint.size === 0 && !checkpoint.rootHash.equals(EMPTY_ROOT)) return text(422, "a checkpoint of size 0 must have the empty tree's root");
    if (!verifyConsistency(latestSize, checkpoint.size, latestRoot, checkpoint.rootHash, proof)) {
      return text(
        422,
        latest && checkpoint.size === latest.size
          ? `refused: a different root for size ${latest.size}, which this witness already cosigned (a fork)`
          : `refused: the consistency proof from size ${latestSize} to ${checkpoint.size} does not verify`,
      );
    }

    const now = Math.floor(this.options.now ? this.options.now() : Date.now() / 1000);
    const body = parseNote(noteText).body;
    if (!latest || checkpoint.size !== latest.size) {
      const record: StateLine = { origin: checkpoint.origin, size: checkpoint.size, root: checkpoint.rootHash.toString("base64"), note: noteText, cosignedAt: now };
      await this.file.appendFile(JSON.stringify(record) + "\n", "utf8");
      await this.file.sync();
      this.state.set(checkpoint.origin, { origin: record.origin, size: record.size, rootHash: checkpoint.rootHash, note: noteText, cosignedAt: now });
    }
    return text(200, cosign(body, this.options.signer, now));
  }

  /** The HTTP handler: POST /add-checkpoint, GET / (the witness's verifier key), GET /latest?origin=… */
  handle = (req: IncomingMessage, res: ServerResponse): void => {
    void this.route(req, res).catch((error: unknown) => {
      console.error("witness: request failed", error);
      if (!res.headersSent) send(res, text(500, "internal error"));
      else res.destroy();
    });
  };

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://witness.invalid");
    if (url.pathname === "/add-checkpoint") {
      if (req.method !== "POST") return send(res, { ...text(405, "use POST"), headers: { Allow: "POST" } });
      const body = await readBody(req);
      if (body === null) return send(res, text(413, `request larger than ${MAX_REQUEST_BYTES} bytes`));
      if (body === undefined) return send(res, text(400, "request body is not UTF-8"));
      return send(res, await this.addCheckpoint(body));
    }
    if (req.method !== "GET") return send(res, { ...text(405, "use GET"), headers: { Allow: "GET" } });
    if (url.pathname === "/") return send(res, text(200, this.verifierKey));
    if (url.pathname === "/latest") {
      const record = this.state.get(url.searchParams.get("origin") ?? "");
      if (!record) return send(res, text(404, "no checkpoint cosigned for that origin"));
      const json = { origin: record.origin, size: record.size, rootHash: record.rootHash.toString("base64"), cosignedAt: record.cosignedAt, note: record.note };
      return send(res, { status: 200, contentType: "application/json", body: JSON.stringify(json) + "\n" });
    }
    return send(res, text(404, "not found"));
  }
}

/** The body as UTF-8 text; null when too large, undefined when not UTF-8. */
async function readBody(req: IncomingMessage): Promise<string | null | undefined> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of req) {
    length += (chunk as Buffer).length;
    if (length > MAX_REQUEST_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    return undefined;
  }
}

function send(res: ServerResponse, response: WitnessResponse & { headers?: Record<string, string> }): void {
  res.writeHead(response.status, { "Content-Type": response.contentType, "Cache-Control": "no-store", ...response.headers });
  res.end(response.body);
}

export type RunningWitness = { witness: Witness; server: Server; url: string; close: () => Promise<void> };

/** Opens the witness and serves it on host:port (port 0 picks a free one). */
export async function startWitnessServer(options: WitnessOptions & { port: number; host?: string }): Promise<RunningWitness> {
  const witness = await Witness.open(options);
  const server = createServer(witness.handle);
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  return {
    witness,
    server,
    url,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await witness.close();
    },
  };
}
