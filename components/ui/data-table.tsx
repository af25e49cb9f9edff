import type { ReactNode } from "react";

/**
 * The console's list table: a caption (for screen readers unless styled), one header row of column
 * names, and the rows the caller renders. `actionsColumn` adds a last column of buttons, named for
 * screen readers only. A table wider than the screen (a phone) scrolls inside its own region, which
 * takes focus so a keyboard can scroll it too; the page itself never scrolls sideways (the region is
 * `relative` so the screen-reader-only labels, positioned absolutely, stay inside it too).
 */
export function DataTable({ caption, columns, actionsColumn = false, className = "w-full text-left text-sm", captionClassName = "sr-only", headCellClassName = "px-3 py-2", children }: {
  caption: string;
  columns: string[];
  actionsColumn?: boolean;
  className?: string;
  captionClassName?: string;
  headCellClassName?: string;
  children: ReactNode;
}) {
  return (
    <div role="region" aria-label={caption} tabIndex={0} className="relative max-w-full overflow-x-auto">
    <table className={className}>
      <caption className={captionClassName}>{caption}</caption>
      <thead className="bg-slate-50 text-xs uppercase tracking-wide text-slate-600">
        <tr>
          {columns.map((column) => <th key={column} scope="col" className={headCellClassName}>{column}</th>)}
          {actionsColumn && <th scope="col" className={headCellClassName}><span className="sr-only">Actions</span></th>}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
    </div>
  );
}
