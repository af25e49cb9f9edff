import { StatusNotice } from "@/components/shell/status-notice";

export default function NotFound() {
  return <StatusNotice kind="not-found" landmark />;
}
