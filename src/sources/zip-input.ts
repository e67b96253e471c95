/**
 * Zip archives (Amplitude's export is a zip of gzipped JSON-lines files): each entry the format
 * reads becomes its own source input, named `archive.zip!path/in/archive.json.gz`, so its rows
 * are numbered from 1 and every reject names the entry and line. A file is read where it lies
 * by ranges, as a zip object in a bucket is (places/place-zip.ts): never extracted to disk or
 * held in memory.
 */
import { open as openFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { InputError } from '../errors.js';
import { isRegularFile, isZip, openSourceInput, type SourceInput } from './open-input.js';
import { diskPlace } from './places/disk-place.js';
import { openZipAt, type OpenInputsOptions } from './places/place-zip.js';

export { zipEntryInputs, type OpenInputsOptions } from './places/place-zip.js';

/**
 * Opens every entry of a zip archive that the format reads (names ending in `extensions`,
 * optionally `.gz`), checking each is text before any row is staged. The inputs share the open
 * archive; closing any of them closes it, which is done once staging is over.
 */
export async function openZipInputs(file: string, extensions: readonly string[], options: OpenInputsOptions = {}): Promise<SourceInput[]> {
  const path = resolve(file);
  let sizeBytes: number;
  try {
    sizeBytes = (await stat(path)).size;
  } catch (error) {
    throw new InputError(`${file}: is not a readable zip archive (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  return openZipAt(diskPlace, { name: path, sizeBytes }, path, file, extensions, options);
}

/** True when the file starts like a zip archive; false when it does not or cannot be read. */
async function looksLikeZip(file: string): Promise<boolean> {
  try {
    const handle = await openFile(file, 'r');
    try {
      const head = Buffer.alloc(4);
      const { bytesRead } = await handle.read(head, 0, 4, 0);
      return isZip(head.subarray(0, bytesRead));
    } finally {
      await handle.close();
    }
  } catch {
    return false;
  }
}

/**
 * Opens a source file as one input, or a zip archive as one input per entry it holds (zip is
 * recognised by its content, not its name). Standard input and pipes are read as streams, and
 * never looked at twice. Errors name the file; see openSourceInput.
 */
export async function openInputs(file: string, extensions: readonly string[], options: OpenInputsOptions = {}): Promise<SourceInput[]> {
  if ((await isRegularFile(file)) && (await looksLikeZip(file))) return openZipInputs(file, extensions, options);
  return [await openSourceInput(file, options)];
}
