/**
 * Files on disk as a Place: folders walked directory by directory (symbolic links to files and
 * to folders followed, each folder once), files read whole or by byte ranges, a file's identity its size, time, inode and
 * the hash of its ends (file-identity.ts).
 */
import { createReadStream } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { InputError } from '../../errors.js';
import { fileIdentity } from '../file-identity.js';
import { NOT_READ } from '../input-names.js';
import type { Listed, Place, PlaceEntry, PlaceStat } from './place.js';

async function statOf(path: string): Promise<PlaceStat> {
  try {
    const info = await stat(path);
    return info.isDirectory() ? { type: 'folder' } : { type: 'file', entry: { name: path, sizeBytes: info.isFile() ? info.size : -1 } };
  } catch {
    return { type: 'missing' };
  }
}

/**
 * Every file below `dir`; a symbolic link to a file is one (a dangling one too: opened, it fails
 * naming itself). A link to a folder is followed as a folder is: data is often linked into an
 * export's tree. A folder reached again (a link back up, two links to one place) is walked once,
 * by the first name in byte order, so a loop ends and no file is listed twice. Sizes are not
 * looked up (-1).
 */
async function walk(dir: string, prefix: string, descend: (key: string) => boolean, out: Listed[], walked: Set<string>): Promise<void> {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    const key = `${prefix}${entry.name}`;
    const folder = entry.isDirectory() || (entry.isSymbolicLink() && (await statOf(path)).type === 'folder');
    if (folder) {
      if (!descend(key)) continue;
      const real = await realpath(path).catch(() => path);
      if (walked.has(real)) continue;
      walked.add(real);
      await walk(path, `${key}/`, descend, out, walked);
    } else if (entry.isFile() || entry.isSymbolicLink()) out.push({ key, entry: { name: path, sizeBytes: -1 } });
  }
}

/** The extensions a directory is read for, in words. */
function described(extensions: readonly string[]): string {
  return [...extensions.filter((ext) => !ext.startsWith(NOT_READ)), '.zip'].join(', ');
}

export const diskPlace: Place = {
  words: { container: 'folder' },
  stat: statOf,
  async list(folder, descend = () => true) {
    const out: Listed[] = [];
    try {
      await walk(folder, '', descend, out, new Set([await realpath(folder).catch(() => folder)]));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (out.length === 0 && (code === 'ENOENT' || code === 'ENOTDIR')) return [];
      throw new InputError(`${folder}: cannot list the directory (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    return out;
  },
  join,
  async readWhole(entry, maxBytes) {
    const parts: Buffer[] = [];
    let got = 0;
    for await (const chunk of createReadStream(entry.name) as AsyncIterable<Buffer>) {
      got += chunk.length;
      if (got > maxBytes) throw new InputError(`${entry.name}: is more than ${maxBytes} bytes, too large to be read whole`);
      parts.push(chunk);
    }
    return Buffer.concat(parts);
  },
  readRange(entry, startByte, endByte) {
    return createReadStream(entry.name, { start: startByte, end: endByte - 1 }) as AsyncIterable<Buffer>;
  },
  identity: async (entry: PlaceEntry) => fileIdentity(entry.name),
  recordedName: (entry) => resolve(entry.name),
  nothingToRead(arg, others, extensions, pattern) {
    if (pattern) return new InputError(`${arg}: no file matches this pattern`);
    const found = others.length === 0 ? 'it has no files' : `it has ${others.length} other file(s), e.g. ${others[0]}`;
    return new InputError(`${arg}: no source files in this directory (looked for names ending ${described(extensions)}, optionally .gz; ${found})`, [
      'Name the files themselves to read them whatever their names.',
    ]);
  },
  missingName: (arg) => [arg],
};
