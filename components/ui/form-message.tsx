import type { ActionMessage } from "@/components/ui/use-server-action";

/** The outcome of a form's last submit: a status when it worked, an alert when it was refused. */
export function FormMessage({ message }: { message: ActionMessage | null }) {
  if (!message) return null;
  return (
    <p role={message.ok ? "status" : "alert"}
      className={`rounded-md border px-3 py-2 ${message.ok ? "border-emerald-200 bg-emerald-50 text-emerald-900" : "border-red-200 bg-red-50 text-red-800"}`}>
      {message.text}
    </p>
  );
}
