import { redirect } from "next/navigation";
import { navigationFor } from "@/lib/roles/permissions";
import { requirePageMember } from "@/lib/server/acting-member";

/** The start page is the first section the member's roles allow. */
export default async function Home() {
  const member = await requirePageMember();
  redirect(navigationFor(member.roles)[0]?.href ?? "/signout");
}
