import { isAbsolute, relative } from 'node:path';

/** A stored absolute path as the user would type it: relative when under the working directory. */
export function displayPath(path: string, cwd: string = process.cwd()): string {
  // An address (s3://bucket/key) is no path: made relative, it would lose a slash.
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) return path;
  const rel = relative(cwd, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}
