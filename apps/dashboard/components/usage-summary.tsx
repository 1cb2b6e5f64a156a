import { formatNumber, formatPercent } from '@/lib/format';
import { OUTCOME_COLORS, OUTCOME_LABELS, OUTCOMES, rejectedOf, totalOf, type Counts } from '@/lib/usage';

/** Totals per outcome and the share of requests answered 429 (rate-limited or over quota). */
export function UsageSummary({ totals }: { totals: Counts }) {
  const total = totalOf(totals);
  return (
    <div className="stats" data-testid="usage-summary">
      <div className="stat">
        <p className="stat__label">Requests</p>
        <p className="stat__value" data-testid="usage-total">
          {formatNumber(total)}
        </p>
      </div>
      {OUTCOMES.map((outcome) => (
        <div className="stat" key={outcome}>
          <p className="stat__label">
            <span className="swatch" style={{ background: OUTCOME_COLORS[outcome] }} aria-hidden="true" />
            {OUTCOME_LABELS[outcome]}
          </p>
          <p className="stat__value" data-testid={`usage-${outcome}`}>
            {formatNumber(totals[outcome])}
          </p>
        </div>
      ))}
      <div className="stat">
        <p className="stat__label">429 share</p>
        <p className="stat__value" data-testid="usage-429-share">
          {formatPercent(rejectedOf(totals), total)}
        </p>
      </div>
    </div>
  );
}
