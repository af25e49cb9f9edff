import { describe, expect, it } from "vitest";
import { liveOffer } from "@/lib/review/live-decision";
import type { DecisionState } from "@/lib/review/read-decision-state";

const shown = { revision: 1, payloadHash: "a".repeat(64) };
const live = (over: Partial<DecisionState> = {}): DecisionState => ({
  status: "pending", revision: 1, payloadHash: "a".repeat(64), state: "unchanged", changes: [], moreChanges: 0, ...over,
});
const change = { path: "amount_refunded_minor", change: "changed" as const, before: 0, after: 200 };

describe("what an open decision offers", () => {
  it("Approve while nothing moved, and while nothing is known yet", () => {
    expect(liveOffer(shown, live())).toEqual({ offer: "approve" });
    expect(liveOffer(shown, null)).toEqual({ offer: "approve" });
    expect(liveOffer(shown, live({ state: "unknown" }))).toEqual({ offer: "approve" });
  });

  it("Re-read, with what changed, the moment the state changes", () => {
    expect(liveOffer(shown, live({ state: "changed", changes: [change], moreChanges: 2 }))).toEqual({ offer: "reread", changes: [change], moreChanges: 2 });
  });

  it("Re-read, not Approve, after the vote refused this revision as stale, even before the next read", () => {
    expect(liveOffer(shown, null, true)).toMatchObject({ offer: "reread" });
    expect(liveOffer(shown, live(), true)).toMatchObject({ offer: "reread" });
  });

  it("no Approve when another revision is current or the action stopped waiting", () => {
    expect(liveOffer(shown, live({ revision: 2, payloadHash: "b".repeat(64) }))).toEqual({ offer: "moved", revision: 2 });
    expect(liveOffer(shown, live({ payloadHash: "b".repeat(64) }))).toEqual({ offer: "moved", revision: 1 });
    expect(liveOffer(shown, live({ status: "rejected" }), true)).toEqual({ offer: "closed", status: "rejected" });
  });

  it("ignores a read older than the revision shown (one taken before a re-read landed)", () => {
    expect(liveOffer({ revision: 2, payloadHash: "b".repeat(64) }, live({ state: "changed" }))).toEqual({ offer: "approve" });
  });
});
