"use client";

import { useEffect, useState } from "react";
import { LIVE_POLL_MS } from "@/lib/review/live-decision";
import type { DecisionState } from "@/lib/review/read-decision-state";

/**
 * Follows one action's decision state while `active` (a dialog open, a page that can decide): one
 * request at a time, each at least LIVE_POLL_MS after the previous one started, none while the tab
 * is hidden, none once closed. Null until the first answer (and after `actionId` changes).
 */
export function useLiveDecisionState(actionId: string | null, active: boolean): DecisionState | null {
  const [live, setLive] = useState<{ actionId: string; state: DecisionState } | null>(null);

  useEffect(() => {
    if (!actionId || !active) return;
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let running = false;
    let started = -Infinity;
    const poll = async () => {
      if (abort.signal.aborted || running || document.visibilityState !== "visible") return;
      running = true;
      started = performance.now();
      let wait = LIVE_POLL_MS;
      try {
        const response = await fetch(`/api/actions/${encodeURIComponent(actionId)}/decision-state`, { cache: "no-store", signal: abort.signal });
        if (response.ok) {
          const state = (await response.json()) as DecisionState;
          // Only a change re-renders: an open form is not redrawn every second for nothing.
          setLive((old) => (old?.actionId === actionId && JSON.stringify(old.state) === JSON.stringify(state) ? old : { actionId, state }));
        }
        // Signed out, no longer a reviewer, or gone: the decision itself will say so; stop asking.
        else if ([401, 403, 404].includes(response.status)) return;
        else wait = 5 * LIVE_POLL_MS;
      } catch {
        if (abort.signal.aborted) return;
        wait = 5 * LIVE_POLL_MS;
      } finally {
        running = false;
      }
      timer = setTimeout(() => void poll(), Math.max(0, wait - (performance.now() - started)));
    };
    // Hidden: the pending timer's poll does nothing; visible again: ask as soon as the pace allows.
    const onVisibility = () => {
      if (document.visibilityState !== "visible" || running) return;
      clearTimeout(timer);
      timer = setTimeout(() => void poll(), Math.max(0, LIVE_POLL_MS - (performance.now() - started)));
    };
    document.addEventListener("visibilitychange", onVisibility);
    void poll();
    return () => {
      abort.abort();
      clearTimeout(timer);
      document.removeEventListener("visibilitychange", onVisibility);
    };
  }, [actionId, active]);

  return live && live.actionId === actionId ? live.state : null;
}
