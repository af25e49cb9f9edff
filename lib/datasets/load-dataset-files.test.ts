import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { whileTurning } from "@/tests/event-loop";
import { canonicalJsonOfPlainJson } from "@/lib/canonical/canonical-json";
import { datasetFilesOf } from "./load-dataset-files";

describe("datasetFilesOf", () => {
  it("parses, canonicalises and hashes a data set of megabytes off the request thread, to the bytes a run reads", async () => {
    // Keys out of order and numbers written unusually, so canonical JSON differs from the stored text.
    const rows = Array.from({ length: 20_000 }, (_, i) => ({ region: `r-${i % 17}`, amount: i / 4, id: i, note: "x".repeat(i % 40) }));
    const contentText = JSON.stringify(rows).replace(/"amount":(\d+)\.5/g, '"amount":$1.50');
    expect(contentText.length).toBeGreaterThan(1_000_000);
    const { result, turns } = await whileTurning(() => datasetFilesOf([{ name: "sales", contentText }, { name: "empty", contentText: "[]" }]));
    expect(turns).toBeGreaterThan(0);
    const expected = Buffer.from(canonicalJsonOfPlainJson(JSON.parse(contentText)), "utf8");
    const sales = result.get("sales")!;
    expect(sales.file).toBe("sales.json");
    expect(sales.bytes.equals(expected)).toBe(true);
    expect(sales.sha256).toBe(createHash("sha256").update(expected).digest("hex"));
    expect(result.get("empty")).toMatchObject({ file: "empty.json", sha256: createHash("sha256").update("[]").digest("hex") });
    expect(await datasetFilesOf([])).toEqual(new Map());
  });
});
