import { formatSize } from "@/components/actions/artifact-list";

/** The data sets a code revision mounts, as the approval binds them: name, size, SHA-256. */
export function DatasetList({ datasets }: { datasets: { name: string; sha256: string; bytes: number }[] }) {
  return (
    <table className="w-full text-left text-[0.85rem]">
      <caption className="sr-only">Data sets mounted read-only at /mnt/data</caption>
      <thead className="text-xs text-slate-600">
        <tr>
          <th scope="col" className="py-1 pr-2 font-medium">File</th>
          <th scope="col" className="py-1 pr-2 font-medium">Size</th>
          <th scope="col" className="py-1 font-medium">SHA-256</th>
        </tr>
      </thead>
      <tbody>
        {datasets.map((d) => (
          <tr key={d.name} className="border-t border-slate-100">
            <td className="py-1 pr-2 font-mono">/mnt/data/{d.name}.json</td>
            <td className="py-1 pr-2">{formatSize(d.bytes)}</td>
            <td className="py-1 font-mono" title={d.sha256}>{d.sha256.slice(0, 16)}…</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
