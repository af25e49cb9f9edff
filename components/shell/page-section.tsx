/** A titled card of a page; its heading names the section for screen readers. */
export function PageSection({ id, title, description, bodyClassName = "p-3", children }: {
  /** Names the heading `${id}-heading`. */
  id: string;
  title: string;
  description?: React.ReactNode;
  bodyClassName?: string;
  children: React.ReactNode;
}) {
  return (
    <section aria-labelledby={`${id}-heading`} className="rounded-lg border border-slate-200 bg-white">
      <div className="border-b border-slate-200 px-4 py-2">
        <h2 id={`${id}-heading`} className="font-semibold">{title}</h2>
        {description && <p className="text-sm text-slate-600">{description}</p>}
      </div>
      <div className={bodyClassName}>{children}</div>
    </section>
  );
}
