import { buttonClass } from "@/components/ui/button";

/** A button that acts on one item of a list; screen readers hear which item after its label. */
export function ItemButton({ kind = "secondary", item, disabled, onClick, children }: {
  kind?: keyof typeof buttonClass;
  item: string;
  disabled?: boolean;
  onClick: () => void;
  children: React.ReactNode;
}) {
  return (
    <button type="button" className={buttonClass[kind]} disabled={disabled} onClick={onClick}>
      {children}<span className="sr-only"> {item}</span>
    </button>
  );
}
