-- Shaping (delaying a request until it fits) exists for leaky_bucket only, and the engine refuses it
-- on any other algorithm: a plan limit or key override stored with it made every check of its keys
-- answer 500. The API now refuses such input (400 naming limits.N.shaping), and this clears the
-- flag where it was stored before, keeping everything else of each limit as it was.

-- Plan limits
UPDATE "PlanLimit" SET "shaping" = false WHERE "shaping" AND "algorithm" <> 'leaky_bucket';

-- Key overrides (a JSON array of LimitInput), in their order
UPDATE "ApiKey" SET "limits" = (
    SELECT jsonb_agg(CASE WHEN l->>'algorithm' <> 'leaky_bucket' AND l->'shaping' = 'true'::jsonb THEN l - 'shaping' ELSE l END ORDER BY ord)
    FROM jsonb_array_elements("ApiKey"."limits") WITH ORDINALITY AS e(l, ord)
), "version" = "version" + 1
WHERE EXISTS (
    SELECT 1 FROM jsonb_array_elements("ApiKey"."limits") AS e(l)
    WHERE l->>'algorithm' <> 'leaky_bucket' AND l->'shaping' = 'true'::jsonb
);
