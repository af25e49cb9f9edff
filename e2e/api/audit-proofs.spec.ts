import { expect, test } from "@playwright/test";
import { seedAgent, expectError } from "@/e2e/api/agent-fixtures";
import { fromHex, verifyConsistency, verifyInclusion } from "@/lib/audit/transparency/merkle";
import { parseCheckpoint, parseVerifierKey, verifyNote } from "@/lib/audit/transparency/signed-note";

type LogInfo = { origin: string; verifierKey: string; treeSize: string; checkpoint: { size: string; rootHash: string; note: string } | null };

test("an agent fetches the signed checkpoint and proves its events are in the log, and that the log only grew", async ({ request }) => {
  const agent = await seedAgent();
  const submit = () => request.post("/api/v1/actions", { data: { tool: "get_invoice", args: { invoice_number: "INV-1042" } }, headers: agent.headers });
  expect((await submit()).status()).toBe(200);
  // The worker signs checkpoints on its cadence; wait for one covering the first events.
  let first: LogInfo | null = null;
  await expect.poll(async () => {
    first = (await (await request.get("/api/v1/audit/checkpoint", { headers: agent.headers })).json()) as LogInfo;
    return Number(first.checkpoint?.size ?? 0);
  }, { timeout: 45_000 }).toBeGreaterThan(0);
  const info = first!;
  const keys = (await (await request.get("/.well-known/countersign-audit-keys")).json()) as { logKey: string };
  expect(info.verifierKey).toBe(keys.logKey);
  const verified = verifyNote(info.checkpoint!.note, [parseVerifierKey(keys.logKey)]);
  expect(verified.verified).toHaveLength(1);
  expect(parseCheckpoint(verified.body)).toMatchObject({ origin: info.origin, size: Number(info.checkpoint!.size) });
  expect(info.origin.endsWith(`/${agent.tenant.id}`)).toBe(true);

  const root = fromHex(info.checkpoint!.rootHash);
  const size = Number(info.checkpoint!.size);
  const proof = (await (await request.get(`/api/v1/audit/proofs/inclusion?seq=1`, { headers: agent.headers })).json()) as { leafHash: string; path: string[]; treeSize: string };
  expect(proof.treeSize).toBe(String(size));
  expect(verifyInclusion(fromHex(proof.leafHash), 0, size, proof.path.map(fromHex), root)).toBe(true);

  // More events, a later checkpoint, and the proof that it extends the first.
  expect((await submit()).status()).toBe(200);
  let later: LogInfo | null = null;
  await expect.poll(async () => {
    later = (await (await request.get("/api/v1/audit/checkpoint", { headers: agent.headers })).json()) as LogInfo;
    return Number(later.checkpoint?.size ?? 0);
  }, { timeout: 45_000 }).toBeGreaterThan(size);
  const consistency = (await (await request.get(`/api/v1/audit/proofs/consistency?from=${size}`, { headers: agent.headers })).json()) as { to: string; path: string[] };
  expect(verifyConsistency(size, Number(consistency.to), root, fromHex(later!.checkpoint!.rootHash), consistency.path.map(fromHex))).toBe(true);

  await expectError(await request.get(`/api/v1/audit/proofs/inclusion?seq=0`, { headers: agent.headers }), 400, /invalid_query/);
  await expectError(await request.get(`/api/v1/audit/proofs/inclusion?seq=999999`, { headers: agent.headers }), 400, "out_of_range");
  await expectError(await request.get(`/api/v1/audit/checkpoint`), 401, /unauthenticated|invalid_api_key/);
});
