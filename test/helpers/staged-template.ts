/**
 * The bundled sample staged once per test run (staging.ts), copied into each test's directory:
 * staging it anew for every test of hosts and locks would cost a second each.
 */
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll } from 'vitest';
import { stagedSampleTemplate } from './staging.js';

export function useStagedTemplate(): (dir: string) => string {
  let template = '';
  beforeAll(async () => {
    template = await stagedSampleTemplate();
  });
  return (dir) => {
    const staging = join(dir, 'migration.db');
    copyFileSync(template, staging);
    return staging;
  };
}

export const TEST_KEY = 'phc_TestProjectKey0123456789abcdefghijklmnopq';
export const PROD_KEY = 'phc_ProdProjectKey0123456789abcdefghijklmnopq';

/** Writes migrate.config.json in `dir`: project test (and prod) on the given hosts. */
export function writeHostsConfig(dir: string, hosts: { test: string; prod?: string }, keys: { test?: string; prod?: string } = {}): string {
  const projects: Record<string, unknown> = { test: { role: 'test', host: hosts.test, apiKey: keys.test ?? TEST_KEY } };
  if (hosts.prod !== undefined) projects.prod = { role: 'production', host: hosts.prod, apiKey: keys.prod ?? PROD_KEY };
  const file = join(dir, 'migrate.config.json');
  writeFileSync(file, JSON.stringify({ projects }, null, 2));
  return file;
}
