import { describe, expect, it } from 'vitest';
import { AllowedMethods } from './allowed-methods';

describe('AllowedMethods', () => {
  const table = new AllowedMethods();
  table.add(['GET', 'HEAD'], '/v1/keys/:id');
  table.add('PATCH', '/v1/keys/:id');
  table.add('DELETE', '/v1/keys/:id');
  table.add('POST', '/v1/keys/:id/rotate');
  table.add('GET', '/v1/usage/export.csv');

  it('lists every method of the routes matching a path, parameters and query string included', () => {
    expect(table.for('/v1/keys/key_123')).toEqual(['DELETE', 'GET', 'HEAD', 'PATCH']);
    expect(table.for('/v1/keys/key_123/rotate?x=1')).toEqual(['POST']);
  });

  it('matches literal segments literally', () => {
    expect(table.for('/v1/usage/export.csv')).toEqual(['GET']);
    expect(table.for('/v1/usage/exportxcsv')).toEqual([]);
    expect(table.for('/v1/keys/a/b')).toEqual([]);
    expect(table.for('/v1/keys/')).toEqual([]);
  });
});
