/** Class names for buttons, so every control looks and focuses the same. */
export const buttonClass = {
  primary: "inline-flex items-center gap-1 rounded-md bg-indigo-700 px-3 py-1.5 font-medium text-white hover:bg-indigo-800 disabled:opacity-50",
  approve: "inline-flex items-center gap-1 rounded-md bg-emerald-700 px-3 py-1.5 font-medium text-white hover:bg-emerald-800 disabled:opacity-50",
  reject: "inline-flex items-center gap-1 rounded-md bg-red-700 px-3 py-1.5 font-medium text-white hover:bg-red-800 disabled:opacity-50",
  secondary: "inline-flex items-center gap-1 rounded-md border border-slate-300 bg-white px-3 py-1.5 font-medium text-slate-800 hover:bg-slate-50 disabled:opacity-50",
} as const;
