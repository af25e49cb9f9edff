"use client";

import { useId, useState } from "react";
import type { TextSize } from "@/lib/review/text-size";

/** Longer than this, a body or a block of code starts collapsed (about a screen of text). */
const MAX_LINES = 30;
const MAX_CHARACTERS = 2500;

/**
 * A long body or block of code (`size` from textSize), collapsed to its first screen by default
 * with a button to show all of it, so the decision below it is not pages away. Short content is
 * shown as it is. The whole text is in the page either way (find-in-page and screen readers reach
 * it).
 */
export function Collapsible({ size, what, children }: { size: TextSize; what: string; children: React.ReactNode }) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const { lines, characters } = size;
  if (lines <= MAX_LINES && characters <= MAX_CHARACTERS) return <>{children}</>;
  return (
    <div>
      <div id={id} className={open ? "" : "relative max-h-80 overflow-hidden"}>
        {children}
        {!open && <div aria-hidden="true" className="pointer-events-none absolute inset-x-0 bottom-0 h-12 bg-gradient-to-t from-white" />}
      </div>
      <button type="button" aria-expanded={open} aria-controls={id} onClick={() => setOpen(!open)}
        className="mt-2 min-h-6 rounded-md border border-slate-300 bg-white px-2 py-1 text-xs font-medium text-slate-800 hover:bg-slate-50">
        {open ? `Collapse the ${what}` : `Show all of the ${what} (${lines} line${lines === 1 ? "" : "s"}, ${characters.toLocaleString("en")} characters)`}
      </button>
    </div>
  );
}
