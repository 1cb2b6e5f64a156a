-- ApiKey.counterId: whose per-key rate-limit counters and quota a key uses. A rotation's successor
-- takes its predecessor's (the first key of the line), so rotating a key resets no limit and no
-- quota, and the old and new secrets share one budget during the grace period. Keys rotated
-- before this migration get the first key of their line, found by walking rotatedFromId.

-- AlterTable
ALTER TABLE "ApiKey" ADD COLUMN "counterId" TEXT;

-- Backfill
WITH RECURSIVE line AS (
    SELECT id, id AS root FROM "ApiKey" WHERE "rotatedFromId" IS NULL
    UNION ALL
    SELECT k.id, line.root FROM "ApiKey" k JOIN line ON k."rotatedFromId" = line.id
)
UPDATE "ApiKey" SET "counterId" = line.root FROM line WHERE "ApiKey".id = line.id AND line.root <> line.id
