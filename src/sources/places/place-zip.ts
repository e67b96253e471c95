/**
 * A zip archive read where it lies, wherever that is: yauzl reads its central directory and
 * each entry through ranged reads of the Place (a file's bytes, an object's ranged GETs), never
 * a copy on disk or in memory. Each entry the format reads becomes its own source input, named
 * `archive.zip!path/in/archive.json.gz`, so its rows are numbered from 1 and every reject names
 * the entry and line. yauzl checks the central directory, zip64 and sizes; its one gap, CRC-32,
 * is checked here as each entry streams past, so a damaged entry fails instead of staging garbage.
 */
import { pipeline, Readable, Transform } from 'node:stream';
import { crc32 } from 'node:zlib';
import { fromRandomAccessReaderPromise, RandomAccessReader, type Entry, type ZipFile } from 'yauzl';
import { InputError } from '../../errors.js';
import { classifyName, isHiddenPath, naturalCompare } from '../input-names.js';
import { openText, type ByteSource, type OpenOptions, type SourceInput } from '../open-input.js';
import type { Place, PlaceEntry } from './place.js';

/** Fails the stream at its end when the bytes do not match the entry's CRC-32. */
function crcCheck(expected: number): Transform {
  let crc = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      crc = crc32(chunk, crc);
      callback(null, chunk);
    },
    flush(callback) {
      callback(crc >>> 0 === expected >>> 0 ? null : new Error('CRC-32 mismatch: the entry is damaged'));
    },
  });
}

/** The entries a format reads, in natural order; refuses entries that cannot be decoded. */
async function readableEntries(zip: ZipFile, displayName: string, extensions: readonly string[]): Promise<Entry[]> {
  const entries: Entry[] = [];
  try {
    for await (const entry of zip.eachEntry()) {
      if (entry.fileName.endsWith('/') || isHiddenPath(entry.fileName) || !classifyName(entry.fileName, extensions)) continue;
      if (classifyName(entry.fileName, extensions) === 'archive') {
        throw new InputError(`${displayName}!${entry.fileName}: a zip archive inside a zip archive; unzip the outer one first`);
      }
      if (entry.isEncrypted() || !entry.canDecodeFileData()) {
        throw new InputError(`${displayName}!${entry.fileName}: cannot be read (encrypted, or compression method ${entry.compressionMethod}; only stored and deflated entries are supported)`);
      }
      entries.push(entry);
    }
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new InputError(`${displayName}: is not a readable zip archive (${(error as Error).message})`);
  }
  return entries.sort((a, b) => naturalCompare(a.fileName, b.fileName));
}

async function openEntry(zip: ZipFile, entry: Entry, archivePath: string, displayName: string, options: OpenOptions): Promise<SourceInput> {
  const name = `${displayName}!${entry.fileName}`;
  const open: ByteSource = async () => {
    try {
      return pipeline(await zip.openReadStreamPromise(entry), crcCheck(entry.crc32), () => {});
    } catch (error) {
      throw new InputError(`${name}: cannot be read from the archive (${(error as Error).message})`);
    }
  };
  try {
    const text = await openText(open, name, options);
    return { path: `${archivePath}!${entry.fileName}`, displayName: name, sizeBytes: entry.uncompressedSize, ...text };
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new InputError(`${name}: cannot be read from the archive (${(error as Error).message})`);
  }
}

export interface OpenInputsOptions extends OpenOptions {
  /**
   * Set for an archive found in a directory or by a glob rather than named: one without entries
   * the format reads is skipped, with this notice, as other files there are.
   */
  skipEmptyArchive?: (notice: string) => void;
}

/**
 * The inputs of an open archive's entries (see openZipInputs), whatever reads its bytes: a
 * file, or ranged reads of an object in a bucket. `path` and `displayName` name the archive.
 */
export async function zipEntryInputs(zip: ZipFile, path: string, file: string, extensions: readonly string[], options: OpenInputsOptions = {}): Promise<SourceInput[]> {
  const close = async (): Promise<void> => {
    if (zip.isOpen) zip.close();
  };
  try {
    const entries = await readableEntries(zip, file, extensions);
    const looked = `names ending ${extensions.join(', ')}, optionally .gz`;
    if (entries.length === 0 && options.skipEmptyArchive !== undefined) {
      options.skipEmptyArchive(`note: ${file}: skipped, a zip archive with no source files in it (looked for ${looked})`);
      await close();
      return [];
    }
    if (entries.length === 0) throw new InputError(`${file}: no source files in this zip archive (looked for ${looked})`);
    const inputs: SourceInput[] = [];
    const openOne = async (entry: Entry, entryOptions: OpenOptions): Promise<SourceInput> => ({
      ...(await openEntry(zip, entry, path, file, entryOptions)),
      close,
      reopen: async (again) => openOne(entry, { ...entryOptions, ...again }),
    });
    for (const entry of entries) inputs.push(await openOne(entry, options));
    return inputs;
  } catch (error) {
    await close();
    throw error;
  }
}

class PlaceRangeReader<E extends PlaceEntry> extends RandomAccessReader {
  constructor(
    private readonly place: Place<E>,
    private readonly entry: E,
  ) {
    super();
  }

  override _readStreamForRange(start: number, end: number): Readable {
    return Readable.from(end > start ? this.place.readRange(this.entry, start, end) : [], { objectMode: false });
  }
}

/**
 * The inputs of the archive `entry` (its size known): `path` names it in the staging file,
 * `displayName` in messages; see zipEntryInputs.
 */
export async function openZipAt<E extends PlaceEntry>(place: Place<E>, entry: E, path: string, displayName: string, extensions: readonly string[], options: OpenInputsOptions): Promise<SourceInput[]> {
  let zip;
  try {
    zip = await fromRandomAccessReaderPromise(new PlaceRangeReader(place, entry), entry.sizeBytes, {
      lazyEntries: true,
      autoClose: false,
      decodeStrings: true,
      validateEntrySizes: true,
    });
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new InputError(`${displayName}: is not a readable zip archive (${(error as Error).message})`);
  }
  return zipEntryInputs(zip, path, displayName, extensions, options);
}
