-- Budgets read running totals of one tool's actions of a tenant over a window (issue 41):
-- lib/db/statements/actions/budget-totals.ts.
CREATE INDEX "Action_tenantId_tool_createdAt_idx" ON "Action"("tenantId", "tool", "createdAt");
