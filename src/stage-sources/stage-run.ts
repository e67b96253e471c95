/**
 * The staging use case as the staging commands run it: stageSources with a SQLite failure
 * outside its transactions (a damaged page, a full disk) told as a staging-file failure naming
 * the file, and the test hooks that cut a run at a known place and make its pieces small.
 */
import { resolve } from 'node:path';
import type { Reporter } from '../reporter.js';
import { isSqliteError } from '../sqlite/storage-failure.js';
import { stagingFailure } from '../staging/staging-failure.js';
import { stageSources, type StageSourcesInput, type StageSourcesResult } from './stage-sources.js';

/** Ends the process at the kill hook's point; given the staging file's path. */
export type TestKill = (staging: string) => void;

const sigkill: TestKill = () => process.kill(process.pid, 'SIGKILL');
let testKill: TestKill = sigkill;

/**
 * Puts a stand-in for the kill hook's SIGKILL (undefined: the SIGKILL again), for a test that
 * runs the program in its own process (test/helpers/in-process-cli.ts): a stand-in must leave
 * the files as the kill would, and stop the run.
 */
export function setTestKill(kill: TestKill | undefined): void {
  testKill = kill ?? sigkill;
}

/**
 * Test hook: `MIGRATE_TEST_KILL_AFTER_PIECES=n` kills the process (SIGKILL, as a power cut
 * would) once n pieces are written and committed, so tests can resume a read cut at a known place.
 */
function withKillHook(reporter: Reporter, staging: string): Reporter {
  const after = Number(process.env.MIGRATE_TEST_KILL_AFTER_PIECES ?? 0);
  if (!(after > 0)) return reporter;
  let pieces = 0;
  return {
    ...reporter,
    progress(text) {
      reporter.progress(text);
      if (++pieces >= after) testKill(staging);
    },
  };
}

/**
 * Test hook: `MIGRATE_TEST_PIECE_CHARS=n` cuts files into pieces of about n characters (bytes for
 * UTF-8 JSON lines) instead of 1 Mi, so tests cross piece boundaries, and kill a run after its
 * n-th piece, with files of a few hundred KiB instead of several MiB.
 */
function withPieceHook(input: StageSourcesInput): StageSourcesInput {
  const chars = Number(process.env.MIGRATE_TEST_PIECE_CHARS ?? 0);
  return chars > 0 ? { ...input, pieceChars: chars } : input;
}

export function runStageSources(input: StageSourcesInput, reporter: Reporter, signal: AbortSignal): Promise<StageSourcesResult> {
  return stageSources(withPieceHook(input), withKillHook(reporter, resolve(input.staging)), signal).catch((error: unknown) =>
    Promise.reject(isSqliteError(error) ? stagingFailure(error, resolve(input.staging)) : error),
  );
}
