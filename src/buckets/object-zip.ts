/**
 * A zip archive in a bucket read where it is: yauzl reads its central directory and each
 * entry through ranged reads of the object (no copy on disk, nothing held but what is read),
 * and its entries become inputs exactly as a zip file's do (sources/zip-input.ts).
 */
import { Readable } from 'node:stream';
import { fromRandomAccessReaderPromise, RandomAccessReader } from 'yauzl';
import { InputError } from '../errors.js';
import { zipEntryInputs, type OpenInputsOptions } from '../sources/zip-input.js';
import type { SourceInput } from '../sources/open-input.js';
import type { BucketContext } from './bucket-calls.js';
import { objectChunks, type ObjectAddress } from './object-bytes.js';

class ObjectRangeReader extends RandomAccessReader {
  constructor(
    private readonly context: BucketContext,
    private readonly address: ObjectAddress,
  ) {
    super();
  }

  override _readStreamForRange(start: number, end: number): Readable {
    return Readable.from(objectChunks(this.context, this.address, start, end), { objectMode: false });
  }
}

/** True when the object is read as a zip archive: by its name, as S3 gives no content to sniff before a read. */
export function isZipKey(key: string): boolean {
  return /\.zip$/i.test(key);
}

export async function openZipObject(context: BucketContext, address: ObjectAddress, extensions: readonly string[], options: OpenInputsOptions): Promise<SourceInput[]> {
  let zip;
  try {
    zip = await fromRandomAccessReaderPromise(new ObjectRangeReader(context, address), address.object.sizeBytes, {
      lazyEntries: true,
      autoClose: false,
      decodeStrings: true,
      validateEntrySizes: true,
    });
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new InputError(`${address.url}: is not a readable zip archive (${(error as Error).message})`);
  }
  return zipEntryInputs(zip, address.url, address.url, extensions, options);
}
