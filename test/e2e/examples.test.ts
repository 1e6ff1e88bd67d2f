import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('examples/ run against the fake gateway when no credentials are set', () => {
  it('npm run examples: every example exits 0', { timeout: 180_000 }, () => {
    const env = { ...process.env, GATEWAY_BASE_URL: '', GATEWAY_TOKEN: '', GATEWAY_API_KEY: '' };
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/run-examples.ts'], {
      env,
      encoding: 'utf8',
    });
    expect(run.stdout).toMatch(/\d+ passed, 0 failed/);
    expect(run.status, run.stderr).toBe(0);
  });
});
