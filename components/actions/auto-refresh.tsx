"use client";

import { useRouter } from "next/navigation";
import { useEffect } from "react";

/**
 * Keeps a waiting action's page current (votes, "state now", status) without a reload. Pauses
 * while the tab is hidden or the reviewer is typing, so a refresh never disturbs a form.
 */
export function ActionAutoRefresh({ active, intervalMs = 10_000 }: { active: boolean; intervalMs?: number }) {
  const router = useRouter();
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => {
      const typing = document.activeElement instanceof HTMLTextAreaElement || document.activeElement instanceof HTMLInputElement;
      if (document.visibilityState === "visible" && !typing) router.refresh();
    }, intervalMs);
    return () => clearInterval(timer);
  }, [active, intervalMs, router]);
  return null;
}
