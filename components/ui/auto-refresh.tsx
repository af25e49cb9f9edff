"use client";

import { useRouter } from "next/navigation";
import { useEffect } from "react";

/**
 * Re-renders the server component tree every `intervalMs` while `intervalMs` is set (e.g. while a
 * task runs), so a page stays live without a reload. Pauses while the tab is hidden.
 */
export function AutoRefresh({ intervalMs }: { intervalMs: number | null }) {
  const router = useRouter();
  useEffect(() => {
    if (!intervalMs) return;
    const timer = setInterval(() => {
      if (document.visibilityState === "visible") router.refresh();
    }, intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs, router]);
  return null;
}
