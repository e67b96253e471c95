/** A config for verify tests: projects test (1) and prod (2) on a sandbox, each with its project key and a seeded personal key. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sandboxPersonalKey } from '../../src/sandbox/api/management-seed.js';
import type { RunningSandbox } from '../../src/sandbox/sandbox-server.js';
import { sandboxTokens } from './sandbox.js';

/** Writes the config in `dir` (one file per key label) and returns its path. */
export function writeVerifyConfig(dir: string, sandbox: RunningSandbox, keyLabel = 'owner-all'): string {
  const tokens = sandboxTokens(sandbox);
  const personalApiKey = sandboxPersonalKey(sandbox.store, keyLabel);
  const project = (role: string, apiKey: string, projectId: string) => ({ role, host: sandbox.url, apiKey, projectId, personalApiKey });
  const file = join(dir, `migrate-${keyLabel}.json`);
  writeFileSync(file, JSON.stringify({ projects: { test: project('test', tokens.test, '1'), prod: project('production', tokens.prod, '2') } }));
  return file;
}
