/**
 * One writer per staging file: two exports (or an export and an import) on the same file would
 * race. A lock file beside it names the holder; a lock left by a dead process is taken over.
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { StagingError } from '../errors.js';

interface LockInfo {
  pid: number;
  host: string;
  command: string;
  startedAt: string;
}

export interface StagingLock {
  release(): void;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readLock(path: string): LockInfo | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as LockInfo;
  } catch {
    return undefined;
  }
}

/** Takes the lock for `stagingPath`, or throws StagingError naming the process holding it. */
export function acquireStagingLock(stagingPath: string, command: string): StagingLock {
  const path = `${stagingPath}.lock`;
  const info: LockInfo = { pid: process.pid, host: hostname(), command, startedAt: new Date().toISOString() };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, JSON.stringify(info));
      closeSync(fd);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          try {
            unlinkSync(path);
          } catch {
            // Already gone: nothing to release.
          }
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readLock(path);
      const stale = holder !== undefined && holder.host === info.host && !isAlive(holder.pid);
      if (!stale) {
        const who = holder ? `process ${holder.pid} (migrate ${holder.command}, started ${holder.startedAt})` : 'another process';
        throw new StagingError(`${stagingPath} is in use by ${who}`, [
          `If no migrate command is running, remove ${path} and try again.`,
        ]);
      }
      unlinkSync(path);
    }
  }
  throw new StagingError(`could not lock ${stagingPath}`);
}
