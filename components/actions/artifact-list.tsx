import type { ArtifactView } from "@/lib/executions/artifact-view";

/** "812 bytes", "14.2 KB", "3.1 MB". */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} byte${bytes === 1 ? "" : "s"}`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * The files a run left in /mnt/out: raster images shown inline (served with nosniff from the
 * console's artifact route), everything else a download link with its size. Names are the code's
 * own words, rendered as text only.
 */
export function ArtifactList({ artifacts }: { artifacts: ArtifactView[] }) {
  if (artifacts.length === 0) return null;
  const images = artifacts.filter((a) => a.inline);
  const files = artifacts.filter((a) => !a.inline);
  return (
    <div className="space-y-2" aria-label="Files the run left in /mnt/out" role="group">
      <p className="text-xs font-medium text-slate-600">Files from /mnt/out ({artifacts.length})</p>
      {images.map((a) => (
        <figure key={a.id} className="space-y-1">
          {/* eslint-disable-next-line @next/next/no-img-element -- bytes from an authenticated route, never optimised or cached */}
          <img src={a.url} alt={a.name} className="max-h-96 max-w-full rounded-md border border-slate-200 bg-white" />
          <figcaption className="text-xs text-slate-600">
            <a href={a.url} download className="font-mono text-indigo-800 underline decoration-slate-300 hover:decoration-indigo-700">{a.name}</a>
            {" · "}{formatSize(a.sizeBytes)} · sha256 <span className="font-mono">{a.sha256.slice(0, 12)}…</span>
          </figcaption>
        </figure>
      ))}
      {files.length > 0 && (
        <ul className="space-y-0.5 text-[0.85rem]">
          {files.map((a) => (
            <li key={a.id}>
              <a href={a.url} download className="font-mono text-indigo-800 underline decoration-slate-300 hover:decoration-indigo-700">{a.name}</a>
              <span className="text-slate-600"> · {formatSize(a.sizeBytes)} · {a.contentType} · sha256 <span className="font-mono">{a.sha256.slice(0, 12)}…</span></span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
