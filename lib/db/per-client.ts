/**
 * One `T` per database client per process, under a global symbol: Next.js may bundle a module more
 * than once, and shared state (a cache a revocation clears, counters) cannot be module-level.
 */
function registry<T>(name: string): WeakMap<object, T> {
  const slot = Symbol.for(`countersign.${name}`);
  const store = globalThis as unknown as Record<symbol, WeakMap<object, T> | undefined>;
  return (store[slot] ??= new WeakMap<object, T>());
}

export function perClient<T>(name: string, db: object, create: () => T): T {
  const map = registry<T>(name);
  let value = map.get(db);
  if (value === undefined) {
    value = create();
    map.set(db, value);
  }
  return value;
}

/** The client's `T` if one was made, without making one. */
export function existingPerClient<T>(name: string, db: object): T | undefined {
  return registry<T>(name).get(db);
}
