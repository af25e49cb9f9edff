/** Where a refused callback goes: the start page. */
export const DEFAULT_CALLBACK_PATH = "/";

const MAX_LENGTH = 2048;
/** Any base works for resolving a path; this one cannot be anyone's real origin. */
const PROBE_ORIGIN = "http://callback.invalid";
/**
 * Backslashes (browsers read them as slashes), and whitespace and control characters anywhere
 * (URL parsers strip tabs and newlines inside a URL, so `/<TAB>/evil.example` becomes `//evil.example`).
 */
const UNSAFE_CHARACTER = /[\\\s\u0000-\u001f\u007f-\u009f]/u;

/**
 * The path to send a person to after signing in or out, or `/` when `raw` could leave the origin:
 * same-origin paths only, or, with `origin`, absolute URLs on exactly it, reduced to their path.
 * Returned as the browser resolves it, so dot segments cannot turn it into `//other.host` later.
 */
export function safeCallbackPath(raw: unknown, options: { origin?: string } = {}): string {
  if (typeof raw !== "string" || raw.length === 0 || raw.length > MAX_LENGTH || UNSAFE_CHARACTER.test(raw)) {
    return DEFAULT_CALLBACK_PATH;
  }
  let path = raw;
  if (!raw.startsWith("/")) {
    const absolute = parseUrl(raw);
    if (!options.origin || !absolute || absolute.origin !== options.origin || absolute.username || absolute.password) {
      return DEFAULT_CALLBACK_PATH;
    }
    path = absolute.pathname + absolute.search + absolute.hash;
  }
  if (path.startsWith("//")) return DEFAULT_CALLBACK_PATH;
  const resolved = parseUrl(path, PROBE_ORIGIN);
  if (!resolved || resolved.origin !== PROBE_ORIGIN) return DEFAULT_CALLBACK_PATH;
  const normalized = resolved.pathname + resolved.search + resolved.hash;
  return normalized.startsWith("/") && !normalized.startsWith("//") ? normalized : DEFAULT_CALLBACK_PATH;
}

function parseUrl(value: string, base?: string): URL | null {
  try {
    return new URL(value, base);
  } catch {
    return null;
  }
}
