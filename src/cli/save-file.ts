/** Writes a downloaded file whole or not at all, and never over an existing file unless asked. */
import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError } from '../errors.js';

export function saveFile(path: string, bytes: Buffer, overwrite: boolean): string {
  const target = resolve(path);
  if (!overwrite && existsSync(target)) throw new UsageError(`${target} exists already`, ['Choose another file with -o, or pass --force to replace it.']);
  const partial = `${target}.part-${process.pid}`;
  try {
    writeFileSync(partial, bytes);
    renameSync(partial, target);
  } catch (error) {
    rmSync(partial, { force: true });
    throw new UsageError(`cannot write ${target} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  return target;
}
