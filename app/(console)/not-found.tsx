import { StatusNotice } from "@/components/shell/status-notice";

/** A 404 inside the console: rendered within the console layout's <main>. */
export default function ConsoleNotFound() {
  return <StatusNotice kind="not-found" landmark={false} />;
}
