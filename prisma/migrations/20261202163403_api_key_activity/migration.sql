-- ApiKey.lastUsedAt moves to a narrow table of its own. The usage flusher raises it for every
-- active key on every flush, and an ApiKey row is wide with nine indexes: such an update is never
-- HOT and rewrites all of them (about 50 us per key). An ApiKeyActivity row has one index and,
-- with fillfactor 80, room on its page for a HOT update (about 5 us per key).
-- Existing values are copied over before the column goes, so no lastUsedAt is lost.

-- CreateTable
CREATE TABLE "ApiKeyActivity" (
    "keyId" TEXT NOT NULL,
    "lastUsedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ApiKeyActivity_pkey" PRIMARY KEY ("keyId")
) WITH (fillfactor = 80);

-- AddForeignKey
ALTER TABLE "ApiKeyActivity" ADD CONSTRAINT "ApiKeyActivity_keyId_fkey" FOREIGN KEY ("keyId") REFERENCES "ApiKey"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CopyData
INSERT INTO "ApiKeyActivity" ("keyId", "lastUsedAt") SELECT "id", "lastUsedAt" FROM "ApiKey" WHERE "lastUsedAt" IS NOT NULL;

-- AlterTable
ALTER TABLE "ApiKey" DROP COLUMN "lastUsedAt";
