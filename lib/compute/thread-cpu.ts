import { readFileSync, readlinkSync } from "node:fs";

/** /proc's CPU times are in clock ticks (USER_HZ), 100 a second on Linux everywhere in practice. */
const MS_PER_TICK = 10;

/** The calling thread's id (Linux), or 0 where /proc/thread-self does not exist. */
export function selfThreadId(): number {
  try {
    return Number(readlinkSync("/proc/thread-self").split("/").at(-1)) || 0;
  } catch {
    return 0;
  }
}

function ticksOf(statPath: string): number | null {
  try {
    const text = readFileSync(statPath, "utf8");
    // Fields after the command name, which is in parentheses and may hold spaces: utime and stime are the 12th and 13th.
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks : null;
  } catch {
    return null;
  }
}

/** CPU time (user + system) the calling thread has used, in ms; null where /proc cannot say. */
export function selfThreadCpuMs(): number | null {
  const ticks = ticksOf("/proc/thread-self/stat");
  return ticks === null ? null : ticks * MS_PER_TICK;
}

/** CPU time (user + system) thread `tid` of this process has used, in ms; null once it is gone, or where /proc cannot say. */
export function threadCpuMs(tid: number): number | null {
  if (!(tid > 0)) return null;
  const ticks = ticksOf(`/proc/self/task/${tid}/stat`);
  return ticks === null ? null : ticks * MS_PER_TICK;
}
