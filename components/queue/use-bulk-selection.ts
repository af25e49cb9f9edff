"use client";

import { useState } from "react";
import type { QueueItem } from "@/lib/review/queue-item";

/** The rows chosen for a bulk decision; rows that left the queue fall out of it. */
export function useBulkSelection(items: QueueItem[]) {
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const present = new Set(items.map((item) => item.id));
  const selectedItems = items.filter((item) => selected.has(item.id));

  const toggle = (id: string) =>
    setSelected((old) => {
      const next = new Set([...old].filter((x) => present.has(x)));
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const clear = () => setSelected(new Set());

  return { selected, selectedItems, toggle, clear };
}
