// Tasks only the tests run on the compute pool.

/** Holds its thread for `ms` without using CPU (Atomics.wait blocks the thread). */
export function sleep(ms: number): number {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
  return ms;
}
