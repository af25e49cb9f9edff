/**
 * For a loop on the request thread whose work grows with its input but is cheap per item (a page
 * of an export): `await tick()` after each item lets the event loop turn once `budgetMs` of work
 * has run since it last turned, so other requests are answered between slices.
 */
export function sliceTimer(budgetMs = 8): () => Promise<void> {
  let start = performance.now();
  return async () => {
    if (performance.now() - start < budgetMs) return;
    await new Promise((resolve) => setImmediate(resolve));
    start = performance.now();
  };
}
