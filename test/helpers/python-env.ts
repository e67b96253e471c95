/**
 * The tests' Python (test/helpers/python-venv.ts), as globalSetup provided it: moto's S3 server,
 * pyarrow and fastavro run from it.
 */
import { spawnSync } from 'node:child_process';
import { inject } from 'vitest';

/** The venv's python executable. */
export function venvPython(): string {
  return inject('pythonEnv').python;
}

/** Runs a Python script in the venv with `args`; throws with its output when it fails. */
export function runPython(script: string, args: string[] = []): string {
  const result = spawnSync(venvPython(), ['-c', script, ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`python failed (${result.status}): ${result.stderr || result.error?.message}`);
  return result.stdout;
}
