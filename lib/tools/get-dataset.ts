import { z } from "zod";
import { notFound } from "@/lib/errors";
import { readDataset } from "@/lib/db/statements/business/read-dataset";
import { defineTool } from "@/lib/tools/tool";
import { DatasetNameSchema } from "@/lib/tools/state-references";

const Args = z.strictObject({ name: DatasetNameSchema });

export const getDataset = defineTool({
  name: "get_dataset",
  kind: "tool",
  description: "Read a small tenant data set by name (e.g. storage-buckets) to analyse it, for example with run_python.",
  classes: ["read"],
  args: Args,
  snapshot: async () => null,
  preview: (args) => ({ summary: `Read data set ${args.name}`, before: null, after: null }),
  async apply(ctx, args) {
    const dataset = await readDataset(ctx.q, { tenantId: ctx.tenantId, name: args.name });
    if (!dataset) throw notFound(`Data set ${args.name}`);
    return { ok: true, result: { name: dataset.name, rows: dataset.content } };
  },
});
