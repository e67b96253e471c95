/**
 * Real small disks for storage-failure tests: a tmpfs of a few MiB mounted on a temp directory
 * (it fills up for real), remounted larger or read-only. Mounting needs root; where it is not
 * permitted, `mount` returns undefined and the test skips itself.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

function run(args: string[]): boolean {
  return spawnSync(args[0]!, args.slice(1), { stdio: 'ignore' }).status === 0;
}

export interface SmallDisks {
  /** A fresh tmpfs of `size` (e.g. "2m") on a temp directory, or undefined when mounting is not permitted. */
  mount(size: string): string | undefined;
  /** Remounts with other options: "size=64m", "ro", "rw". */
  remount(dir: string, options: string): void;
}

/** Bytes in use on the disk holding `dir`. */
export function usedBytes(dir: string): number {
  const s = statfsSync(dir);
  return (s.blocks - s.bfree) * s.bsize;
}

export function useSmallDisks(): SmallDisks {
  const mounted: string[] = [];
  afterEach(() => {
    for (const dir of mounted.splice(0)) {
      run(['umount', dir]);
      rmSync(dir, { recursive: true, force: true });
    }
  });
  return {
    mount(size) {
      if (process.platform !== 'linux' || process.getuid?.() !== 0) return undefined;
      const dir = mkdtempSync(join(tmpdir(), 'migrate-disk-'));
      if (!run(['mount', '-t', 'tmpfs', '-o', `size=${size},mode=0755`, 'tmpfs', dir])) {
        rmSync(dir, { recursive: true, force: true });
        return undefined;
      }
      mounted.push(dir);
      return dir;
    },
    remount(dir, options) {
      if (!run(['mount', '-o', `remount,${options}`, dir])) throw new Error(`cannot remount ${dir} with ${options}`);
    },
  };
}

/** Runs a command as the unprivileged user `nobody`, when this process may (root, with setpriv). */
export function asNobody(): string[] | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const probe = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', 'true'], { stdio: 'ignore' });
  return probe.status === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : undefined;
}
