import { decodeStoredJson } from "@/lib/db/stored-text";

/**
 * At most this many characters of an execution's result are on the action page: an upstream MCP
 * server may answer with megabytes (MCP_UPSTREAM_MAX_BYTES), which no reviewer reads on a page
 * and which would make the page as large.
 */
export const RESULT_SHOWN_CHARACTERS = 20_000;

/** An execution's result as the action page shows it: the start of its pretty JSON, and how much is left out. */
export type ResultText = { text: string; omittedCharacters: number };

/** A result that could not be prepared in time (the compute pool's budget, or a busy pool): none of it is shown. */
export type UnpreparedResult = { unprepared: true; characters: number };

/**
 * A stored result (the jsonb column as text) as pretty JSON, cut after `max` characters (never
 * between the two halves of a surrogate pair). Its cost grows with the result: it runs on the
 * compute pool (prepare-result-texts.ts), never on a request thread.
 */
export function resultText(storedJson: string, max: number = RESULT_SHOWN_CHARACTERS): ResultText {
  const pretty = JSON.stringify(decodeStoredJson(JSON.parse(storedJson) as unknown), null, 2) ?? "";
  if (pretty.length <= max) return { text: pretty, omittedCharacters: 0 };
  const code = pretty.charCodeAt(max - 1);
  const cut = code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
  return { text: pretty.slice(0, cut), omittedCharacters: pretty.length - cut };
}
