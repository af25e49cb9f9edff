"use client";

import { useSyncExternalStore } from "react";

function subscribe(onTick: () => void): () => void {
  const timer = setInterval(onTick, 1000);
  return () => clearInterval(timer);
}
const currentSecond = () => Math.floor(Date.now() / 1000) * 1000;
/** The server renders the absolute time; the browser takes over with the live countdown. */
const noClockOnServer = () => null;

/** The current time, updated every second in the browser (null while server-rendering). */
export function useNow(): number | null {
  return useSyncExternalStore(subscribe, currentSecond, noClockOnServer);
}

/** "in 4 min" / "expired 2 min ago", ticking every second; the exact time is in the title. */
export function TimeLeft({ until, expiredLabel = "expired" }: { until: string | null; expiredLabel?: string }) {
  const now = useNow();
  if (!until) return <span>—</span>;
  const target = new Date(until).getTime();
  if (now === null) return <time dateTime={until}>{new Date(until).toISOString().replace("T", " ").slice(0, 16)} UTC</time>;
  const seconds = Math.round((target - now) / 1000);
  return (
    <time dateTime={until} title={new Date(until).toString()} className={seconds <= 0 ? "text-red-700" : seconds < 300 ? "text-amber-800" : ""}>
      {seconds <= 0 ? `${expiredLabel} ${formatDuration(-seconds)} ago` : `${formatDuration(seconds)} left`}
    </time>
  );
}

export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ${seconds % 60}s`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ${Math.floor((seconds % 3600) / 60)}m`;
  return `${Math.floor(seconds / 86_400)}d ${Math.floor((seconds % 86_400) / 3600)}h`;
}
