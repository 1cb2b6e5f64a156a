export { mostConstrained, rateLimitHeaders, rateLimitHeader, rateLimitPolicyHeader, retryAfterSeconds, sfString, type LimitState } from './rate-limit-headers';
