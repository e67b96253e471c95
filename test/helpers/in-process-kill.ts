/**
 * The kill hook (MIGRATE_TEST_KILL_AFTER_PIECES, src/stage-sources/stage-run.ts) for a run in
 * the test's own process (in-process-cli.ts), where a real SIGKILL would end the test runner.
 * It leaves on disk exactly what the SIGKILL leaves, and stops the run; the result reads as a
 * killed process's (signal SIGKILL, the output written before the kill).
 *
 * Why the files are the same as after a kill:
 * - The hook fires where the SIGKILL would, in the same call: once the n-th piece is committed,
 *   synchronously, before the run takes another step. At that instant this stand-in copies the
 *   staging file, its -wal and its -shm byte for byte (and notes which of them do not exist).
 *   SQLite hands a commit to the OS with write(2) before returning: a SIGKILL ends the process
 *   with its files exactly as they are then (the OS keeps what was written; nothing in the
 *   process's memory reaches the disk afterwards). The staging file is the only file a staging
 *   run writes (bucket objects are read as streams, never downloaded to disk).
 * - It then throws, which unwinds the run: the run's error path, its lock release, its final
 *   steps and the closing of the file (which checkpoints the WAL and deletes it) all still run,
 *   as they never would after a kill. So once the run is over and has closed the file, the
 *   copied bytes are put back and a file that did not exist at the kill is removed: whatever
 *   the run wrote after the kill point is gone, and the WAL holds its uncheckpointed frames as
 *   the kill left them. Nothing else is written meanwhile: runs in this process take turns.
 * - The staging lock (a row in the file, staging-lock.ts) names the process holding it, and a
 *   later run takes it over only when that process is gone. A killed process is gone; this one
 *   is not. So the run is given a pid no process can have (DEAD_PID) as its process.pid for its
 *   duration: the lock row it leaves names a dead process, as a killed process's row does.
 *   Nothing else in a staging run reads process.pid.
 *
 * What this cannot show is the process itself ending (the OS closing its files, a worker thread
 * cut mid-piece): a few tests keep a real kill of a subprocess (`ownProcess: true`) for that.
 * Nor does it stop work the run leaves going after it returned: a bucket object's read may go on
 * with one more ranged GET. That work cannot reach the staging file (closed), but a test that
 * counts the requests of the next run would see it: such a test keeps the real kill.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { setTestKill as SetTestKill } from '../../src/stage-sources/stage-run.js';

/** A pid no process can have: Linux's pid_max is at most 2^22. */
export const DEAD_PID = 2 ** 22 + 1;

/** The files of a SQLite database in WAL mode (-journal for a file still in rollback mode). */
const SQLITE_SUFFIXES = ['', '-wal', '-shm', '-journal'];

/** The name of the error that unwinds a run killed in-process. */
const KILLED = 'killed by the test hook (in-process stand-in for SIGKILL)';

type StageRun = { setTestKill: typeof SetTestKill };

let stageRun: Promise<StageRun> | undefined;

/** The built stage-run.js, the module instance run-program.js uses (both loaded natively by URL). */
function builtStageRun(root: string): Promise<StageRun> {
  stageRun ??= import(pathToFileURL(join(root, 'dist', 'stage-sources', 'stage-run.js')).href) as Promise<StageRun>;
  return stageRun;
}

/** Every file of the database at `path`, as on disk now (undefined: it does not exist). */
function snapshot(path: string): Map<string, Buffer | undefined> {
  return new Map(SQLITE_SUFFIXES.map((suffix) => [path + suffix, existsSync(path + suffix) ? readFileSync(path + suffix) : undefined]));
}

function putBack(files: Map<string, Buffer | undefined>): void {
  for (const [path, bytes] of files) {
    if (bytes === undefined) rmSync(path, { force: true });
    else writeFileSync(path, bytes);
  }
}

/** A run being killed in-process: the output at the kill, once it fired. */
export interface InProcessKill {
  /** The output written before the kill, once it fired (undefined: it never fired). */
  killedOutput(): { stdout: string; stderr: string } | undefined;
  /** After the run: its files put back as the kill left them, the SIGKILL and process.pid as they were. */
  end(): void;
}

/**
 * Arms the stand-in for the run about to start: `output` reads what it has written so far.
 * Call `end` once the run is over (it has closed its files), whatever happened.
 */
export async function armInProcessKill(root: string, output: () => { stdout: string; stderr: string }): Promise<InProcessKill> {
  const { setTestKill } = await builtStageRun(root);
  const pid = Object.getOwnPropertyDescriptor(process, 'pid')!;
  let files: Map<string, Buffer | undefined> | undefined;
  let atKill: { stdout: string; stderr: string } | undefined;
  setTestKill((staging) => {
    // Once only: a run that went on after the first throw (an error caught and the next file begun) was already dead.
    files ??= snapshot(staging);
    atKill ??= output();
    throw new Error(KILLED);
  });
  Object.defineProperty(process, 'pid', { ...pid, value: DEAD_PID });
  return {
    killedOutput: () => atKill,
    end() {
      Object.defineProperty(process, 'pid', pid);
      setTestKill(undefined);
      if (files !== undefined) putBack(files);
    },
  };
}
