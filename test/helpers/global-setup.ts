/**
 * Runs once per `vitest run`, in the main process: a temp directory for what test files may
 * share across workers (the staged sample, see staging.ts), removed when the run ends; and the
 * tests' Python venv (python-venv.ts), made on the first run and reused after.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { ensurePythonEnv, type PythonEnv } from './python-venv.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A directory shared by every test file of the run; empty at its start. */
    sharedDir: string;
    /** The tests' Python venv (moto, pyarrow, fastavro). */
    pythonEnv: PythonEnv;
  }
}

export default function setup(project: TestProject): () => void {
  project.provide('pythonEnv', ensurePythonEnv());
  const dir = mkdtempSync(join(tmpdir(), 'migrate-test-shared-'));
  project.provide('sharedDir', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
