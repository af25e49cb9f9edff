-- Budgets (issue 41): the running totals a budget rule reads, and the budgets' locks, in one
-- function (docs/DESIGN.md, "Budgets"), so a proposal's own statement can take the locks, read
-- the totals and write. VOLATILE: its totals query takes a snapshot of its own after the locks are
-- granted, and so sees every spend committed before them (a plain statement's snapshot predates
-- the locks it waits for).
--   lock_keys: the budgets' advisory locks (transaction-scoped), taken in key order,
--   statuses:  the statuses that spend (lib/db/statements/actions/budget-totals.ts),
--   exclude:   actions not counted (a revision's own, or a batch's own, already written),
--   replay:    the policy editor's dry run: each total as of the query's "asOf", counting every
--              call that was not denied,
--   queries:   [{id, tenantId, windowSeconds, tool, argument, apiKeyId, userId, taskId, asOf}]:
--              argument null counts the tool's actions, otherwise sums that integer argument of
--              each action's current revision, and the scope is the key, else the member (without a
--              key), else the task, and all null: the whole tenant.
-- The body is one string with its semicolons escaped (\073): Prisma's migrate splits a script at them.
CREATE FUNCTION "budget_totals"(lock_keys text[], statuses text[], exclude uuid[], replay boolean, queries jsonb)
RETURNS TABLE (id text, total numeric) LANGUAGE plpgsql VOLATILE AS E'DECLARE
  k text\073
BEGIN
  FOR k IN SELECT DISTINCT x FROM unnest(lock_keys) AS x ORDER BY x LOOP
    PERFORM pg_advisory_xact_lock(hashtextextended(''countersign.budget:'' || k, 0))\073
  END LOOP\073
  RETURN QUERY
  SELECT t.id, (
    SELECT COALESCE(sum(CASE
      WHEN t.argument IS NULL THEN 1
      WHEN jsonb_typeof(r.args -> t.argument) = ''number'' THEN trunc((r.args ->> t.argument)::numeric)
      ELSE 0 END), 0)
    FROM "Action" a
    JOIN "ActionRevision" r ON r."actionId" = a.id AND r.revision = a."currentRevision"
    WHERE a."tenantId" = t."tenantId" AND a.tool = t.tool
      AND a."createdAt" > (CASE WHEN replay THEN COALESCE(t."asOf", now()) ELSE now() END) - make_interval(secs => t."windowSeconds")
      AND (CASE WHEN replay THEN a.status <> ''denied'' AND a."createdAt" < COALESCE(t."asOf", now()) ELSE a.status::text = ANY(statuses) END)
      AND a.id <> ALL(exclude)
      AND (t."apiKeyId" IS NULL OR a."requesterApiKeyId" = t."apiKeyId")
      AND (t."userId" IS NULL OR (a."requesterUserId" = t."userId" AND a."requesterApiKeyId" IS NULL))
      AND (t."taskId" IS NULL OR a."taskId" = t."taskId")
  )
  FROM jsonb_to_recordset(queries)
    AS t(id text, "tenantId" uuid, "windowSeconds" int, tool text, argument text, "apiKeyId" uuid, "userId" uuid, "taskId" uuid, "asOf" timestamptz)\073
END';
