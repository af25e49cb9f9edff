/** Raster images a browser may show inline; everything else is only ever a download. */
export const INLINE_IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

const MAGIC: { type: string; ext: string[]; matches: (b: Buffer) => boolean }[] = [
  { type: "image/png", ext: [".png"], matches: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) },
  { type: "image/jpeg", ext: [".jpg", ".jpeg"], matches: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { type: "image/gif", ext: [".gif"], matches: (b) => /^GIF8[79]a/.test(b.subarray(0, 6).toString("latin1")) },
  { type: "image/webp", ext: [".webp"], matches: (b) => b.subarray(0, 4).toString("latin1") === "RIFF" && b.subarray(8, 12).toString("latin1") === "WEBP" },
];

// Types named by extension alone are served as downloads, so a wrong guess costs nothing. SVG and
// HTML are deliberately absent: they can carry script, and are plain octet streams here.
const BY_EXTENSION: Record<string, string> = {
  ".csv": "text/csv",
  ".txt": "text/plain",
  ".json": "application/json",
  ".pdf": "application/pdf",
  ".zip": "application/zip",
};

/**
 * The Content-Type an artifact is stored and served with, chosen conservatively: an image type only
 * when the name's extension and the file's first bytes agree.
 */
export function artifactContentType(name: string, bytes: Buffer): string {
  const dot = name.lastIndexOf(".");
  const ext = dot > name.lastIndexOf("/") && dot !== -1 ? name.slice(dot).toLowerCase() : "";
  for (const magic of MAGIC) {
    if (magic.ext.includes(ext)) return magic.matches(bytes) ? magic.type : "application/octet-stream";
  }
  return BY_EXTENSION[ext] ?? "application/octet-stream";
}
