/** A source opened as text, as the readers see it (opened by open-input.ts, or as a Parquet file by columnar/parquet-input.ts). */

export interface SourceInput {
  /** Absolute path; `<stdin>` for standard input. */
  path: string;
  displayName: string;
  /** Size in bytes; -1 for a stream (pipe, FIFO, standard input), whose size is not known before it is read. */
  sizeBytes: number;
  compressed: boolean;
  /** The WHATWG name of the encoding the text is decoded from. */
  encoding: string;
  /** The start of the decoded text, to its first line that is not blank (at most 16 Ki characters): a CSV header, a JSON array's `[`. */
  headText: string;
  /** Decoded text, in chunks of about 64 KiB, from the start. */
  text: AsyncIterable<string>;
  /**
   * UTF-8 sources only: the content's bytes (gunzipped, without the byte-order mark), for
   * readers that decode where they read (worker threads). Read either this or `text`, never both.
   */
  utf8Bytes?: AsyncIterable<Buffer>;
  /** `sha256:<hex>` of the source's bytes; available once `text` has been read to the end. */
  fingerprint(): string | undefined;
  /** Found in a folder or by a pattern (not named itself): a failure to read it is told, and the folder's other files are staged. */
  foundInFolder?: boolean;
  /** What the source was when opened (see file-identity.ts), recorded with its completed read; absent for a stream. */
  identity?: string;
  /** For an object in a bucket (or an entry of a zip object): the object, recorded as listed. */
  bucketObject?: BucketObjectRecord;
  /** A Parquet file: the rows of each of its row groups (its lines are its rows, see parquet-input.ts). */
  rowGroupRows?: number[];
  /** Which kind of file `rowGroupRows` is of: an Avro file's row groups are its blocks. */
  columnar?: 'parquet' | 'avro';
  /** A Parquet or Avro file: its top-level column names, known from its schema before any row is read. */
  columns?: string[];
  /**
   * A source whose text can be made from any line on without reading the text before (a
   * Parquet file): a read records `key` as its fingerprint at each piece, in place of a hash of
   * the text, and is resumed by `textFromLine` (a new iterable, from that line's start).
   */
  resumable?: { key: string; textFromLine(line: number): AsyncIterable<string> };
  /**
   * A plain UTF-8 object of a bucket: its text from a byte on (after its byte-order mark), by a
   * ranged read guarded by `etag`, the ETag it was listed with; `afterCr` says whether the byte
   * before is a `\r`. An interrupted read is resumed by it when it began on the same ETag.
   */
  rangedText?: { etag: string; textFromByte(bytes: number): Promise<{ text: AsyncIterable<string>; afterCr: boolean }> };
  /** Releases what the input holds open (a zip archive, a pipe); called once staging is over. */
  close?(): Promise<void>;
  /**
   * Opens the source again from its start, with other options if given (an encoding); absent
   * for a stream, which is read once.
   */
  reopen?(options?: Pick<OpenOptions, 'encoding'>): Promise<SourceInput>;
}

export interface OpenOptions {
  /** The encoding --encoding names (a WHATWG name); a byte-order mark wins over it. Default utf-8. */
  encoding?: string;
  /** Ends a wait for a FIFO's writer, or for the next bytes of a pipe. */
  signal?: AbortSignal;
  /** Told when a pipe or FIFO is opened (which waits for its writer). */
  notice?: (text: string) => void;
}

/** An object of a bucket as listed: its address (`s3://bucket/key`), bucket, key, size and ETag. */
export interface BucketObjectRecord {
  url: string;
  bucket: string;
  key: string;
  sizeBytes: number;
  etag: string;
  /** The version S3 answered the object's first read with, in a versioned bucket. */
  versionId?: string;
  /** The store it was listed at (see buckets/bucket-settings.ts endpointIdentity): the same key elsewhere is another object. */
  endpoint: string;
}
