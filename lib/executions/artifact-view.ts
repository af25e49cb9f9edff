import { INLINE_IMAGE_TYPES } from "@/lib/executions/artifact-content-type";

/** An artifact as the console lists it (never its bytes: those come from `url`). */
export type ArtifactView = { id: string; name: string; contentType: string; sizeBytes: number; sha256: string; inline: boolean; url: string };

/** The Prisma selection an artifact listing reads: everything but the bytes. */
export const ARTIFACT_LISTING = { id: true, name: true, contentType: true, sizeBytes: true, sha256: true } as const;

/** An artifact row as the console shows it, served by the console's artifact route. */
export function artifactViewOf(actionId: string, row: { id: string; name: string; contentType: string; sizeBytes: number; sha256: string }): ArtifactView {
  return {
    ...row,
    inline: INLINE_IMAGE_TYPES.has(row.contentType),
    url: `/api/actions/${encodeURIComponent(actionId)}/artifacts/${encodeURIComponent(row.id)}`,
  };
}
