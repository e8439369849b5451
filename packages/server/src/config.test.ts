import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('loadConfig', () => {
  it('has working defaults for a fresh machine', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ port: 3000, host: '0.0.0.0', allowRegistration: false, allowPrivateUrls: false, databaseUrl: undefined });
    expect(c.publicUrl).toBe('http://localhost:3000');
    expect(c.dataDir).toMatch(/data$/);
  });

  it('lists every bad variable at once', () => {
    try {
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', ALLOW_REGISTRATION: 'maybe', ADMIN_EMAIL: 'nope', SECRET_KEY: 'short' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const problems = (err as ConfigError).problems.join('\n');
      for (const name of ['PORT', 'DATABASE_URL', 'ALLOW_REGISTRATION', 'ADMIN_EMAIL', 'SECRET_KEY']) expect(problems).toContain(name);
    }
  });

  it('reads booleans and strips a trailing slash from PUBLIC_URL', () => {
    const c = loadConfig({ ALLOW_REGISTRATION: 'true', ALLOW_PRIVATE_URLS: '1', PUBLIC_URL: 'https://studio.example.com/' });
    expect(c.allowRegistration).toBe(true);
    expect(c.allowPrivateUrls).toBe(true);
    expect(c.publicUrl).toBe('https://studio.example.com');
  });
});
