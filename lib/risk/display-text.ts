// Control, bidi, zero-width and tag characters would make a reason lie about what it shows.
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]|\udb40[\udc00-\udc7f]/g;

/** A short, single-line, visible-only excerpt of untrusted text for a tag reason. */
export function quoteForReason(s: string, max = 60): string {
  const clean = s.replace(INVISIBLE, " ").replace(/\s+/g, " ").trim();
  return JSON.stringify(clean.length > max ? `${clean.slice(0, max)}…` : clean);
}
