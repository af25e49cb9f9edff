/**
 * Asks a C2SP tlog-witness to cosign a checkpoint. Every outcome is a value: `cosigned` (lines to
 * append), `conflict` (it last cosigned `witnessSize`: prove from there and ask again), `refused`
 * (400/403/404/422 with its message), `unreachable`.
 */

export type CosignatureRequest = { oldSize: number; consistencyProof: readonly Uint8Array[]; note: string };

export type CosignatureOutcome =
  | { kind: "cosigned"; lines: string[] }
  | { kind: "conflict"; witnessSize: number }
  | { kind: "refused"; status: number; message: string }
  | { kind: "unreachable"; message: string };

/** The request body: `old <size>`, one base64 proof hash per line, a blank line, the signed checkpoint. */
export function addCheckpointBody({ oldSize, consistencyProof, note }: CosignatureRequest): string {
  if (!Number.isSafeInteger(oldSize) || oldSize < 0) throw new RangeError(`old size must be a non-negative safe integer, got ${oldSize}`);
  const proofLines = consistencyProof.map((h) => `${Buffer.from(h).toString("base64")}\n`).join("");
  return `old ${oldSize}\n${proofLines}\n${note}`;
}

const SIZE_BODY = /^(0|[1-9][0-9]*)\n?$/;

export async function requestCosignature(witnessUrl: string, request: CosignatureRequest, { timeoutMs = 10_000 }: { timeoutMs?: number } = {}): Promise<CosignatureOutcome> {
  const endpoint = new URL("add-checkpoint", witnessUrl.endsWith("/") ? witnessUrl : `${witnessUrl}/`);
  let response: Response;
  let body: string;
  try {
    response = await fetch(endpoint, {
      method: "POST",
      headers: { "Content-Type": "text/plain; charset=utf-8" },
      body: addCheckpointBody(request),
      signal: AbortSignal.timeout(timeoutMs),
    });
    body = await response.text();
  } catch (error) {
    const message = error instanceof Error && error.name === "TimeoutError" ? `no answer within ${timeoutMs} ms` : String((error as Error)?.cause ?? error);
    return { kind: "unreachable", message: `${endpoint.origin}: ${message}` };
  }
  if (response.status === 200) {
    const lines = body.split("\n").filter((l) => l.length > 0).map((l) => `${l}\n`);
    if (lines.length === 0 || !lines.every((l) => l.startsWith("— "))) return { kind: "refused", status: 200, message: "the witness answered 200 without cosignature lines" };
    return { kind: "cosigned", lines };
  }
  if (response.status === 409) {
    const contentType = response.headers.get("content-type") ?? "";
    const match = SIZE_BODY.exec(body);
    if (contentType.startsWith("text/x.tlog.size") && match && Number.isSafeInteger(Number(match[1]))) return { kind: "conflict", witnessSize: Number(match[1]) };
  }
  return { kind: "refused", status: response.status, message: body.trim().slice(0, 500) };
}
