import { StatusNotice } from "@/components/shell/status-notice";

/** A 403 inside the console: rendered within the console layout's <main>. */
export default function ConsoleForbidden() {
  return <StatusNotice kind="forbidden" landmark={false} />;
}
