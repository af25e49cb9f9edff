import { healthReport } from "@/lib/server/health";

export const dynamic = "force-dynamic";

/** GET /api/health (lib/server/health.ts). The console's own server answers it before Next.js does. */
export async function GET() {
  const { httpStatus, report } = await healthReport();
  return Response.json(report, { status: httpStatus });
}
