/**
 * Long text cells of a Parquet row group kept as the page's bytes until their row is written.
 *
 * A row group is decoded whole, a column at a time (DuckDB writes one page per column chunk,
 * 122,880 rows by default), and its rows are written as lines afterwards. Decoded at once, a
 * column of long texts held every value as a JavaScript string until its line was made: a
 * `properties` text with one non-Latin-1 character costs two bytes a character, and the
 * benchmark's row groups held 127 MB of strings, which V8's old generation then doubled between
 * collections. A lazy cell keeps a view of the decompressed page (one byte a byte, outside the
 * heap, shared by the column's cells) and decodes it when its row is written; the text made is
 * the parser's own, so what is written is the same, only later.
 */
/**
 * Texts shorter than this are decoded at once: a lazy cell costs about 80 bytes of heap, about
 * what such a string costs.
 */
export const LAZY_FROM_BYTES = 64;

type Parser<T> = (raw: T) => unknown;

/** A value decoded when first asked for (a dictionary's value is asked for by many rows, and decoded once). */
export abstract class LazyCell {
  private done = false;
  private decoded: unknown;

  value(): unknown {
    if (!this.done) {
      this.decoded = this.decode();
      this.done = true;
    }
    return this.decoded;
  }

  protected abstract decode(): unknown;
}

/**
 * Bytes of a page, kept as the page and a range of it: the view hyparquet made is let go (a
 * typed array costs more heap than the cell).
 */
class LazyBytes extends LazyCell {
  private buffer: ArrayBufferLike | undefined;
  private readonly offset: number;
  private readonly length: number;

  constructor(
    bytes: Uint8Array,
    private readonly parse: Parser<Uint8Array>,
  ) {
    super();
    this.buffer = bytes.buffer;
    this.offset = bytes.byteOffset;
    this.length = bytes.byteLength;
  }

  protected decode(): unknown {
    const value = this.parse(new Uint8Array(this.buffer!, this.offset, this.length));
    this.buffer = undefined;
    return value;
  }
}

/** A count of time units (or days), turned into its text when its row is written. */
class LazyCount<T> extends LazyCell {
  constructor(
    private readonly count: T,
    private readonly parse: Parser<T>,
  ) {
    super();
  }

  protected decode(): unknown {
    return this.parse(this.count);
  }
}

/** `value` decoded, when it is a lazy cell; else `value`. */
export function settled(value: unknown): unknown {
  return value instanceof LazyCell ? value.value() : value;
}

function lazyBytes(parse: Parser<Uint8Array> | undefined): Parser<Uint8Array> | undefined {
  if (parse === undefined) return undefined;
  return (bytes) => (bytes !== undefined && bytes !== null && bytes.byteLength >= LAZY_FROM_BYTES ? new LazyBytes(bytes, parse) : parse(bytes));
}

function lazyCount<T>(parse: Parser<T> | undefined): Parser<T> | undefined {
  if (parse === undefined) return undefined;
  return (count) => (count === undefined || count === null ? parse(count) : new LazyCount(count, parse));
}

const BYTES_PARSERS = ['stringFromBytes', 'jsonFromBytes'] as const;
const COUNT_PARSERS = ['timestampFromMilliseconds', 'timestampFromMicroseconds', 'timestampFromNanoseconds'] as const;

/**
 * hyparquet's `parsers` with texts and JSON texts of `LAZY_FROM_BYTES` bytes or more, and times, left as
 * lazy cells (a time's text is built of slices and joins: 200 bytes of heap each, decoded at
 * once). Only for a column whose cells are its rows' values (a top-level column that is neither
 * a group nor repeated): cells inside lists or records would reach the writer undecoded.
 */
export function lazyParsers<P extends object>(parsers: P): P {
  const given = parsers as Record<string, unknown>;
  const lazy: Record<string, unknown> = { ...given };
  for (const name of BYTES_PARSERS) {
    const parse = lazyBytes(given[name] as Parser<Uint8Array> | undefined);
    if (parse !== undefined) lazy[name] = parse;
  }
  for (const name of COUNT_PARSERS) {
    const parse = lazyCount(given[name] as Parser<unknown> | undefined);
    if (parse !== undefined) lazy[name] = parse;
  }
  return lazy as P;
}
