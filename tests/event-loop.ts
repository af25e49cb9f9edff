/**
 * Runs `work` while the event loop turns (setImmediate, again and again), and says how many turns
 * it made before the result arrived. Work done synchronously on this thread gives none; work sent
 * to another thread (the compute pool) leaves the loop turning while it runs.
 */
export async function whileTurning<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let stopped = false;
  const turn = () => {
    if (stopped) return;
    turns++;
    setImmediate(turn);
  };
  setImmediate(turn);
  try {
    const result = await work();
    return { result, turns };
  } finally {
    stopped = true;
  }
}
