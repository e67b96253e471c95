import { isAbsolute, relative } from 'node:path';

/** A stored absolute path as the user would type it: relative when under the working directory. */
export function displayPath(path: string, cwd: string = process.cwd()): string {
  const rel = relative(cwd, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}
