/**
 * Where source files lie, behind one small interface: a folder on disk or a bucket prefix. The
 * folder logic (expanding an argument, run manifests, a vendor's folder, zip archives, the
 * rerun's "unchanged" test) is written once over it (see expand-argument.ts); disk-place.ts and
 * buckets/bucket-place.ts say how each store lists, stats and reads.
 */

/** One file found: its full name (a path on disk, an object's address) and its size. */
export interface PlaceEntry {
  name: string;
  sizeBytes: number;
}

/** A file below a folder, by its key there (relative, `/`-separated). */
export interface Listed<E extends PlaceEntry = PlaceEntry> {
  key: string;
  entry: E;
}

/** What a name is: a file (an object), a folder (a directory, a prefix with objects below), or nothing. */
export type PlaceStat<E extends PlaceEntry = PlaceEntry> = { type: 'file'; entry: E } | { type: 'folder' } | { type: 'missing' };

/** The words a place's messages use. */
export interface PlaceWords {
  /** Where a file a manifest lists is not: `folder`, `bucket`. */
  container: string;
}

export interface Place<E extends PlaceEntry = PlaceEntry> {
  readonly words: PlaceWords;
  /** What `name` is. */
  stat(name: string): Promise<PlaceStat<E>>;
  /**
   * Every file below the folder, hidden ones too. `descend(key)` false for a subfolder's key
   * says nothing below it is wanted: a store that lists folder by folder skips it, one that
   * lists flat may ignore it. A folder that is not there holds no files; one that cannot be
   * listed is an InputError.
   */
  list(folder: string, descend?: (key: string) => boolean): Promise<Array<Listed<E>>>;
  /** The name of `key` below `folder`. */
  join(folder: string, key: string): string;
  /** Every byte of a small file (a manifest); more than `maxBytes` is an InputError. */
  readWhole(entry: E, maxBytes: number): Promise<Buffer>;
  /** The bytes from `startByte` up to `endByte` (exclusive). */
  readRange(entry: E, startByte: number, endByte: number): AsyncIterable<Buffer>;
  /** What tells the file unchanged since it was staged (see file-identity.ts); undefined when nothing can. */
  identity(entry: E): Promise<string | undefined>;
  /** The name a staged read records the file by: a resolved path, an object's address. */
  recordedName(entry: E): string;
  /**
   * The error for an argument that gives no file to read: `others` are the files found there
   * that the format does not read; `pattern` when the argument is a glob.
   */
  nothingToRead(arg: string, others: readonly string[], extensions: readonly string[], pattern: boolean): Error;
  /** A name that is nothing here and no pattern: kept, to fail when opened (a file), or an error now. */
  missingName(arg: string, extensions: readonly string[]): string[];
}
