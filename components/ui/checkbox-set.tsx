/** A fieldset of checkboxes that chooses a subset of `options` (by value). */
export function CheckboxSet({ legend, options, chosen, setChosen, listClassName, labelClassName }: {
  legend: string;
  options: Array<{ value: string; label: React.ReactNode }>;
  chosen: string[];
  setChosen: React.Dispatch<React.SetStateAction<string[]>>;
  listClassName: string;
  labelClassName: string;
}) {
  return (
    <fieldset className="text-sm">
      <legend className="text-xs font-medium text-slate-700">{legend}</legend>
      <div className={`mt-0.5 flex flex-wrap gap-y-1 ${listClassName}`}>
        {options.map(({ value, label }) => (
          <label key={value} className={`inline-flex min-h-6 items-center gap-1 ${labelClassName}`}>
            <input
              type="checkbox"
              checked={chosen.includes(value)}
              onChange={(e) => setChosen((cur) => (e.target.checked ? [...cur, value] : cur.filter((v) => v !== value)))}
              className="h-4 w-4 accent-indigo-700"
            />
            {label}
          </label>
        ))}
      </div>
    </fieldset>
  );
}
