import { describe, expect, it } from 'vitest';
import { EnvError, parseEnv, redactUrl } from './env';

describe('parseEnv', () => {
  it('applies the contract defaults', () => {
    const env = parseEnv({});
    expect(env.DATABASE_URL).toBe('postgresql://postgres@127.0.0.1:5432/tollgate');
    expect(env.REDIS_URL).toBe('redis://127.0.0.1:6379');
    expect(env.PORT).toBe(3000);
    expect(env.DASHBOARD_PORT).toBe(3001);
    expect(env.API_URL).toBe('http://127.0.0.1:3000');
    expect(env.USAGE_FLUSH_MS).toBe(5000);
    expect(env.LOG_LEVEL).toBe('info');
  });

  it('names every bad variable in one line', () => {
    expect(() => parseEnv({ PORT: 'abc', USAGE_FLUSH_MS: '-1' })).toThrow(EnvError);
    try {
      parseEnv({ PORT: 'abc', USAGE_FLUSH_MS: '-1', TOLLGATE_ROOT_KEY: 'nope' });
    } catch (error) {
      const message = (error as Error).message;
      expect(message).toContain('PORT');
      expect(message).toContain('USAGE_FLUSH_MS');
      expect(message).toContain('TOLLGATE_ROOT_KEY');
      expect(message.split('\n')).toHaveLength(1);
    }
  });

  it('reads TRUST_PROXY as none, or addresses, CIDR ranges and presets; refuses anything else', () => {
    expect(parseEnv({}).TRUST_PROXY).toEqual(['loopback', 'linklocal', 'uniquelocal']);
    expect(parseEnv({ TRUST_PROXY: 'none' }).TRUST_PROXY).toEqual([]);
    expect(parseEnv({ TRUST_PROXY: '10.1.2.3, 192.168.0.0/16,fd00::/8,loopback' }).TRUST_PROXY).toEqual(['10.1.2.3', '192.168.0.0/16', 'fd00::/8', 'loopback']);
    for (const bad of ['everyone', '10.0.0.0/33', '::1/129', '10.0.0.0/8/1', '300.1.1.1', 'loopback,', '10.0.0.0/x']) {
      expect(() => parseEnv({ TRUST_PROXY: bad }), bad).toThrow(/TRUST_PROXY: must be none, or a comma-separated list/);
    }
  });

  it('treats empty variables as unset', () => {
    expect(parseEnv({ PORT: '', LOG_LEVEL: '' }).PORT).toBe(3000);
  });
});

describe('redactUrl', () => {
  it('masks passwords', () => {
    expect(redactUrl('postgresql://user:s3cret@db:5432/x')).toBe('postgresql://user:***@db:5432/x');
    expect(redactUrl('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
  });
});
