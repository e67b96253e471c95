/**
 * Runs `export-source --from mixpanel-api | amplitude-api` (the built CLI) against a stand-in:
 * a temp dir with a config naming the stand-in as the API host, the secret in the environment,
 * and options that keep tests from sleeping (no rate limit, retries after a millisecond).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, startCli, type CliOptions, type CliResult } from './run-cli.js';

export const MIXPANEL_SECRET = 'mp-secret-7f3a9c2e1b';
export const AMPLITUDE_SECRET = 'amp-secret-4d8e2a6f0c';
export const AMPLITUDE_KEY = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';

export interface ApiTarget {
  dir: string;
  staging: string;
  config: string;
  env: Record<string, string>;
}

export function mixpanelTarget(dir: string, apiHost: string, projectId: string, username: string): ApiTarget {
  const config = join(dir, 'migrate.config.json');
  writeFileSync(config, JSON.stringify({ sources: { mixpanel: { projectId, username, secretEnv: 'MIXPANEL_SECRET', apiHost } } }, null, 2));
  return { dir, staging: join(dir, 'migration.db'), config, env: { MIXPANEL_SECRET } };
}

export function amplitudeTarget(dir: string, apiHost: string): ApiTarget {
  const config = join(dir, 'migrate.config.json');
  writeFileSync(config, JSON.stringify({ sources: { amplitude: { apiKey: AMPLITUDE_KEY, secretKeyEnv: 'AMPLITUDE_SECRET_KEY', apiHost } } }, null, 2));
  return { dir, staging: join(dir, 'migration.db'), config, env: { AMPLITUDE_SECRET_KEY: AMPLITUDE_SECRET } };
}

/** No rate limit and millisecond retries, unless the test passes its own. */
const FAST = ['--max-requests-per-hour', '0', '--retry-initial-ms', '1', '--retry-max-delay-ms', '5'];

function args(target: ApiTarget, from: string, start: string, end: string, extra: string[]): string[] {
  return ['export-source', '--from', from, '--start', start, '--end', end, '--staging', target.staging, '--config', target.config, ...FAST, ...extra];
}

export function fetchApi(target: ApiTarget, from: string, start: string, end: string, extra: string[] = [], options: Pick<CliOptions, 'ownProcess'> = {}): Promise<CliResult> {
  return runCli(args(target, from, start, end, extra), { cwd: target.dir, env: target.env, ...options });
}

export function startFetch(target: ApiTarget, from: string, start: string, end: string, extra: string[] = []): ReturnType<typeof startCli> {
  return startCli(args(target, from, start, end, extra), { cwd: target.dir, env: target.env });
}
