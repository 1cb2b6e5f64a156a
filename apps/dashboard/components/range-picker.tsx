'use client';

import { RANGE_IDS, RANGES, type RangeId } from '@/lib/usage';

export function RangePicker({ value, onChange, disabled }: { value: RangeId; onChange: (range: RangeId) => void; disabled?: boolean }) {
  return (
    <div className="segmented" role="group" aria-label="Time range">
      {RANGE_IDS.map((id) => (
        <button key={id} type="button" aria-pressed={value === id} title={RANGES[id].label} onClick={() => onChange(id)} disabled={disabled}>
          {id}
        </button>
      ))}
    </div>
  );
}
