import type { Limit, LimitInput } from '@tollgate/contracts';
import { formatAlgorithm, formatDuration, formatNumber } from './format';

/** "10 per 1 s, burst 20" and "token bucket (shaping)". */
export function describeLimit(limit: Limit | LimitInput): { rate: string; algorithm: string } {
  const burst = limit.burst ? `, burst ${formatNumber(limit.burst)}` : '';
  return {
    rate: `${formatNumber(limit.limit)} per ${formatDuration(limit.windowMs)}${burst}`,
    algorithm: `${formatAlgorithm(limit.algorithm)}${limit.shaping ? ' (shaping)' : ''}`,
  };
}

export function describeQuota(quota: { limit: number; period: 'day' | 'month'; resetDay?: number } | null | undefined): string {
  if (!quota) return 'No quota';
  const reset = quota.period === 'month' && quota.resetDay && quota.resetDay !== 1 ? `, resets on day ${quota.resetDay}` : '';
  return `${formatNumber(quota.limit)} per ${quota.period}${reset}`;
}
