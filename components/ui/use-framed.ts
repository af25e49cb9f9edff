"use client";

import { useSyncExternalStore } from "react";

const subscribe = () => () => {};

/**
 * Whether this page is inside a frame: true or false in the browser, null while server-rendered
 * or hydrating (not known yet, so treat as "not safe to act"). The Content-Security-Policy's
 * frame-ancestors 'none' already stops browsers from framing the console; this is the second lock,
 * for decision controls, should a frame get through (an old browser, a same-origin frame).
 */
export function useFramed(): boolean | null {
  return useSyncExternalStore(subscribe, () => window.top !== window.self, () => null);
}

export const FRAMED_MESSAGE = "Decisions are disabled inside a frame: open Countersign in its own tab to decide.";
