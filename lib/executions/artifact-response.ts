import { INLINE_IMAGE_TYPES } from "@/lib/executions/artifact-content-type";
import type { ArtifactContent } from "@/lib/executions/find-artifact";

/**
 * The name a download is saved under: the last path segment, reduced to letters, digits, dot,
 * dash and underscore (nothing a header or a file system could read as more), never empty.
 */
export function safeDownloadName(name: string): string {
  const base = name.split("/").at(-1) ?? "";
  const cleaned = base.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\.+/, "").slice(0, 120);
  return cleaned || "artifact";
}

/**
 * An artifact's bytes as a response. Only the raster images artifact-content-type.ts recognised
 * (by extension and magic bytes) are shown inline; everything else is a download under a safe name.
 * Never sniffed, never cached, and sandboxed should a browser render it anyway.
 */
export function artifactResponse(artifact: ArtifactContent): Response {
  const inline = INLINE_IMAGE_TYPES.has(artifact.contentType);
  const body = new Uint8Array(artifact.data);
  return new Response(body, {
    headers: {
      "Content-Type": artifact.contentType,
      "Content-Length": String(body.byteLength),
      "Content-Disposition": `${inline ? "inline" : "attachment"}; filename="${safeDownloadName(artifact.name)}"`,
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": "private, no-store",
      "Content-Security-Policy": "default-src 'none'; sandbox",
      ETag: `"${artifact.sha256}"`,
    },
  });
}
