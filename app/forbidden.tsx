import { StatusNotice } from "@/components/shell/status-notice";

export default function Forbidden() {
  return <StatusNotice kind="forbidden" landmark />;
}
