-- UsageRollup: the natural key (keyId, granularity, bucketStart) becomes the primary key and the
-- surrogate id goes, with its index and sequence: no query reads it, and the flusher pays for
-- every index on each row it writes. The existing unique index is taken over as the primary key
-- (renamed "UsageRollup_pkey"), so nothing is rebuilt and the key is never unenforced.
ALTER TABLE "UsageRollup" DROP CONSTRAINT "UsageRollup_pkey";
ALTER TABLE "UsageRollup" DROP COLUMN "id";
ALTER TABLE "UsageRollup" ADD CONSTRAINT "UsageRollup_pkey" PRIMARY KEY USING INDEX "UsageRollup_keyId_granularity_bucketStart_key";
