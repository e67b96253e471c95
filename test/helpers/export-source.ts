/**
 * Runs `migrate export-source` (the built CLI) into a staging file in a temp directory and reads
 * back its JSON summary, `status --json` and `rejects --json`. Vendor tests build on it; an
 * import step can follow with the same `dir` and `staging`.
 */
import { join } from 'node:path';
import { expect } from 'vitest';
import { runCli } from './run-cli.js';

export interface Staging {
  dir: string;
  staging: string;
}

export function stagingIn(dir: string): Staging {
  return { dir, staging: join(dir, 'migration.db') };
}

/** export-source --json; expects success and nothing on stderr. */
export async function exportSource(target: Staging, args: string[], env?: Record<string, string>) {
  const result = await runCli(['export-source', '--staging', target.staging, '--json', ...args], { cwd: target.dir, env });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout);
}

export async function statusOf(target: Staging) {
  const result = await runCli(['status', '--json', '--staging', target.staging], { cwd: target.dir });
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout);
}

export async function rejectsOf(target: Staging): Promise<Array<{ path: string; line: number; field: string; reason: string; message: string; raw: string }>> {
  const result = await runCli(['rejects', '--json', '--staging', target.staging], { cwd: target.dir });
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout);
}
