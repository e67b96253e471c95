/** Writes a downloaded file whole or not at all, and never over an existing file unless asked. */
import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { UsageError } from '../errors.js';

/** Fails early, before any work, when the file exists and may not be replaced. */
export function refuseExisting(path: string, overwrite: boolean): string {
  const target = resolve(path);
  if (!overwrite && existsSync(target)) throw new UsageError(`${target} exists already`, ['Choose another file with -o, or pass --force to replace it.']);
  return target;
}

/** A file name a server suggested, kept to a plain name in the current folder. */
export function serverFileName(name: string): string {
  const plain = basename(name.replace(/\\/g, '/'));
  return plain === '' || plain === '.' || plain === '..' ? 'export' : plain;
}

function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // Nothing was written there, or it cannot be removed either; the error that matters follows.
  }
}

export function saveFile(path: string, bytes: Buffer, overwrite: boolean): string {
  const target = refuseExisting(path, overwrite);
  const partial = `${target}.part-${process.pid}`;
  try {
    writeFileSync(partial, bytes);
    renameSync(partial, target);
  } catch (error) {
    removeQuietly(partial);
    throw new UsageError(`cannot write ${target} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  return target;
}
