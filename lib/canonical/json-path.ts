const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Extends a display path: `args` + `items` → `args.items`; odd keys are quoted: `args["a b"]`. */
export function childPath(parent: string, key: string | number): string {
  if (typeof key === "number") return `${parent}[${key}]`;
  if (IDENTIFIER.test(key)) return parent === "" ? key : `${parent}.${key}`;
  return `${parent}[${JSON.stringify(key)}]`;
}

/** Undefined for the top level, so errors there carry no path. */
export function displayPath(path: string): string | undefined {
  return path === "" ? undefined : path;
}
