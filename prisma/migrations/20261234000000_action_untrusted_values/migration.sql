-- Tags survive edits (issue 17 item 3): the untrusted text a proposal was assessed against is
-- kept on the action, so every later revision is assessed against the same sources

-- AlterTable
ALTER TABLE "Action" ADD COLUMN     "untrustedValues" TEXT[] DEFAULT ARRAY[]::TEXT[];
