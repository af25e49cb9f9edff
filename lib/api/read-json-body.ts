import { parseStrictJsonBytes } from "@/lib/canonical/parse-strict-json";
import { InvalidPayloadError } from "@/lib/canonical/invalid-payload-error";
import type { JsonValue } from "@/lib/canonical/json-value";
import { AppError } from "@/lib/errors";

/** The largest request body the agent API reads (a 100,000-character code block fits with room). */
export const MAX_BODY_BYTES = 256 * 1024;

/**
 * Reads a JSON request body without ever holding more than `maxBytes` of it, then parses it
 * strictly (duplicate keys, lone surrogates, numbers beyond 2^53, __proto__, too deep: refused).
 * An empty body reads as `undefined` so routes with optional bodies can accept it.
 */
export async function readJsonBody(request: Request, maxBytes = MAX_BODY_BYTES): Promise<JsonValue | undefined> {
  const declared = request.headers.get("content-length");
  if (declared && Number(declared) > maxBytes) throw tooLarge(maxBytes);
  const bytes = await readCapped(request, maxBytes);
  if (bytes.byteLength === 0) return undefined;
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/json\s*(?:;|$)/i.test(type)) {
    throw new AppError("unsupported_media_type", "Send the body as JSON with Content-Type: application/json.", 415);
  }
  return parseStrictJsonBytes(bytes, { maxBytes });
}

/**
 * A request body's bytes, read chunk by chunk and given up (the stream cancelled) the moment they
 * pass `maxBytes`, whatever Content-Length said or did not say (a chunked body has none).
 * Throws InvalidPayloadError `payload_too_large`.
 */
export async function readCapped(request: Request, maxBytes: number): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

function tooLarge(maxBytes: number) {
  return new InvalidPayloadError("payload_too_large", `The request body is larger than ${maxBytes} bytes.`);
}
