/** Free disk next to a file: what doctor reports and what staging checks before it writes. */
import { existsSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

export type DiskFacts = { path: string; freeBytes: number } | { path: string; error: string };

/** The nearest existing directory holding `file` (the staging file may not exist yet). */
function existingDirectory(file: string): string {
  let dir = dirname(resolve(file));
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/** Free bytes for this user on the file system that holds (or will hold) `file`. */
export async function diskFacts(file: string): Promise<DiskFacts> {
  const path = existingDirectory(file);
  try {
    const stats = await statfs(path);
    return { path, freeBytes: stats.bavail * stats.bsize };
  } catch (error) {
    return { path, error: (error as NodeJS.ErrnoException).code ?? (error as Error).message };
  }
}
