-- Trigram matching for key search by name fragment (contrib, shipped with PostgreSQL).
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- CreateIndex
CREATE INDEX "ApiKey_name_trgm_idx" ON "ApiKey" USING GIN ("name" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "ApiKey_start_pattern_idx" ON "ApiKey"("start" text_pattern_ops);
