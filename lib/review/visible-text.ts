/**
 * Output as a reviewer sees it: control characters other than tab and line breaks, and lone
 * surrogates, become visible escapes (`\x00`, `\x1b`, `\ud800`) instead of vanishing in the page.
 */
export function visibleText(text: string): string {
  return text.replace(/[\u0000-\u0008\v\f\u000e-\u001f\u007f\uD800-\uDFFF]/gu, (ch) => {
    const code = ch.charCodeAt(0);
    return code > 0xff ? `\\u${code.toString(16)}` : `\\x${code.toString(16).padStart(2, "0")}`;
  });
}
