import { describe, expect, it } from 'vitest';
import { formProblem, placedIn } from './form-errors';
import { restatesFields, type ProblemInfo } from './problem';

const invalid = (errors: { path: string; message: string }[]): ProblemInfo => ({
  status: 400,
  code: 'VALIDATION_FAILED',
  title: 'Bad Request',
  // As the API's validation pipe words it.
  detail: `Invalid body: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`,
  errors,
});

describe('formProblem', () => {
  const placed = placedIn(['name']);

  it('does not repeat, in the alert, the errors shown next to their inputs', () => {
    const shown = formProblem(invalid([{ path: 'name', message: 'is required' }]), placed);
    expect(shown.detail).toBe('Check the highlighted fields.');
    expect(shown.errors).toEqual([]);
    expect(shown.detail).not.toContain('is required');
  });

  it('lists the errors no input shows, once', () => {
    const shown = formProblem(invalid([{ path: 'name', message: 'is required' }, { path: 'meta', message: 'is too large' }]), placed);
    expect(shown.detail).toBe('Check the highlighted fields, and:');
    expect(shown.errors).toEqual([{ path: 'meta', message: 'is too large' }]);
  });

  it('keeps a detail that says more than its field errors (a 409, say)', () => {
    const conflict: ProblemInfo = { status: 409, code: 'CONFLICT', title: 'Conflict', detail: 'A plan named "pro" already exists.', errors: [{ path: 'name', message: 'must be unique' }] };
    expect(restatesFields(conflict)).toBe(false);
    expect(formProblem(conflict, placed).detail).toBe('A plan named "pro" already exists.');
  });
});
