import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/tests/db";
import { createTestTenant, type TestTenant } from "@/tests/factories";
import { whileTurning } from "@/tests/event-loop";
import { Prisma } from "@/lib/generated/prisma/client";
import { proposeAction } from "@/lib/approvals/propose-action";
import { encodeStoredJson } from "@/lib/db/stored-text";
import { loadActionDetail } from "@/lib/review/load-action-detail";
import { prepareResultTexts } from "@/lib/review/prepare-result-texts";
import { RESULT_SHOWN_CHARACTERS, resultText } from "@/lib/review/result-text";

// Keys in the order jsonb keeps them (shorter first, then by bytes), as they read back from the column.
/** What an upstream MCP server may answer with (MCP_UPSTREAM_MAX_BYTES is 2 MiB unless set). */
const LARGE = { content: [{ text: "a result line\n".repeat(150_000), type: "text" }], isError: false };
const SMALL = { content: [{ text: "Refunded 50.00 EUR", type: "text" }], isError: false };
const pretty = (value: unknown) => JSON.stringify(value, null, 2);

describe("resultText: an execution's result as the action page shows it", () => {
  it("is the whole pretty JSON when short, and its start with the count of the rest when long", () => {
    expect(resultText(JSON.stringify(SMALL))).toEqual({ text: pretty(SMALL), omittedCharacters: 0 });
    const cut = resultText(JSON.stringify(LARGE));
    expect(cut.text).toBe(pretty(LARGE).slice(0, RESULT_SHOWN_CHARACTERS));
    expect(cut.omittedCharacters).toBe(pretty(LARGE).length - RESULT_SHOWN_CHARACTERS);
  });

  it("never cuts between the halves of a surrogate pair, and shows what the stored escapes stand for", () => {
    // `"` then 4 characters of `"😀😀…`: the cut at 6 falls inside the third character's pair.
    const cut = resultText(JSON.stringify("😀😀😀"), 6);
    expect(cut).toEqual({ text: `"😀😀`, omittedCharacters: 3 });
    // A NUL a tool returned is stored escaped (stored-text.ts) and shown as JSON writes it.
    expect(resultText(JSON.stringify(encodeStoredJson({ out: "a\u0000b" }))).text).toBe(pretty({ out: "a\u0000b" }));
  });

  it("is prepared on the compute pool: the request thread keeps turning while a 2 MB result is cut", async () => {
    const { result, turns } = await whileTurning(() =>
      prepareResultTexts([{ id: "large", json: JSON.stringify(LARGE) }, { id: "small", json: JSON.stringify(SMALL) }]),
    );
    expect(turns).toBeGreaterThan(0);
    expect(result.get("large")).toEqual({ text: pretty(LARGE).slice(0, RESULT_SHOWN_CHARACTERS), omittedCharacters: pretty(LARGE).length - RESULT_SHOWN_CHARACTERS });
    expect(result.get("small")).toEqual({ text: pretty(SMALL), omittedCharacters: 0 });
  });
});

describe("the action page's loader", () => {
  let t: TestDatabase;
  let a: TestTenant;

  beforeAll(async () => {
    t = await createTestDatabase();
    a = await createTestTenant(t.db);
  });
  afterAll(async () => t?.drop());

  async function actionThatRan(result: Prisma.InputJsonValue | typeof Prisma.DbNull | typeof Prisma.JsonNull): Promise<string> {
    const proposed = await proposeAction(t.db, {
      tenantId: a.id, requester: a.requester, tool: "refund_invoice",
      args: { invoice_number: "INV-1043", amount_minor: 5_000, reason: "Customer returned the goods" }, reason: "Asked",
    });
    if (proposed.state !== "pending") throw new Error(JSON.stringify(proposed));
    // The row an execution leaves (how it ran is not what this test is about).
    await t.db.execution.create({
      data: {
        tenantId: a.id, actionId: proposed.actionId, revision: 1, idempotencyKey: randomUUID(), status: "succeeded", isolation: "in-process",
        result: result === Prisma.DbNull || result === Prisma.JsonNull ? result : encodeStoredJson(result), finishedAt: new Date(),
      },
    });
    return proposed.actionId;
  }

  const detailOf = async (actionId: string) => (await loadActionDetail(t.db, { tenantId: a.id, userId: a.users.reviewer.id, roles: ["reviewer"] }, actionId))!;

  it("shows the start of a large result and says how much is not shown; a small one whole; none when there is none", async () => {
    const large = await detailOf(await actionThatRan(LARGE));
    expect(large.executions[0].result).toEqual({
      text: pretty(LARGE).slice(0, RESULT_SHOWN_CHARACTERS), omittedCharacters: pretty(LARGE).length - RESULT_SHOWN_CHARACTERS,
    });
    const small = await detailOf(await actionThatRan(SMALL));
    expect(small.executions[0].result).toEqual({ text: pretty(SMALL), omittedCharacters: 0 });
    for (const none of [Prisma.DbNull, Prisma.JsonNull]) expect((await detailOf(await actionThatRan(none))).executions[0].result).toBeNull();
  });
});
