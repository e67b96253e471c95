/**
 * One column chunk of a Parquet row group read a slice of rows at a time: its pages are
 * decompressed one at a time, and only the slice's values become JavaScript values. A writer
 * may put a whole row group in one page per column (DuckDB does, 122,880 rows by default), so
 * the slice is cut within the page: its definition and repetition levels are decoded whole
 * (a byte each), its values as the slice asks for them. PLAIN values (every type but BOOLEAN)
 * are read from the page as the slices reach them; other encodings' values are decoded for the
 * page at once, which for dictionary indices and numbers is a typed array or an array of small
 * integers, and only their conversion (dictionary lookups, texts, times) waits for the slice.
 * Levels, values and their conversion are hyparquet's own functions, so each value is what
 * hyparquet's whole-chunk read made of it.
 */
import { assembleLists } from 'hyparquet/src/assemble.js';
import { parquetHeader, readPage } from 'hyparquet/src/column.js';
import { convert, convertWithDictionary } from 'hyparquet/src/convert.js';
import { decompressPage, readDataPage, readDataPageV2 } from 'hyparquet/src/datapage.js';
import { readRleBitPackedHybrid } from 'hyparquet/src/encoding.js';
import { readPlain } from 'hyparquet/src/plain.js';
import { getMaxDefinitionLevel, getMaxRepetitionLevel } from 'hyparquet/src/schema.js';
import { freeBuffer } from '../../util/free-buffer.js';
import { isZstdFrame, STREAMED_FROM_BYTES, StreamedPage } from './parquet-page-stream.js';

export type ColumnDecoder = Parameters<typeof readPage>[2];
type PageHeader = ReturnType<typeof parquetHeader>;
type DataReader = Parameters<typeof readPage>[0];
type DecodedArray = ReturnType<typeof convert>;
type Levels = Uint8Array | Int32Array;

/** The values of a data page, taken in order a slice at a time. */
interface PageValues {
  take(count: number): DecodedArray;
  /** Buffers the values were read from that are no longer read (freed once the rows taken so far are written). */
  drop?(): Uint8Array[];
  /** Called once every value is taken. */
  end?(): void;
}

interface DataPage {
  /** Repetition levels, when the column repeats. */
  rep: Levels | undefined;
  /** Definition levels, when some value may be null or an empty list. */
  def: Levels | undefined;
  /** Level entries (values, nulls and empty lists) in the page. */
  count: number;
  /** The next level entry to take. */
  at: number;
  encoding: string;
  values: PageValues;
  /** The decompressed bytes its values are read from, when they are a buffer of their own (freed once spent). */
  owned?: Uint8Array;
}

function levelArray(count: number, maxLevel: number): Levels {
  return maxLevel < 256 ? new Uint8Array(count) : new Int32Array(count);
}

const bitWidth = (value: number): number => 32 - Math.clz32(value);

/** Levels as hyparquet's decoders return them (empty when left out), as a typed array or undefined. */
function levelsOf(levels: ArrayLike<number> | undefined, maxLevel: number): Levels | undefined {
  if (levels === undefined || levels.length === 0) return undefined;
  const out = levelArray(levels.length, maxLevel);
  for (let i = 0; i < levels.length; i++) out[i] = levels[i]!;
  return out;
}

/** Values decoded already, handed on a slice at a time. */
function decodedValues(values: DecodedArray): PageValues {
  let at = 0;
  return {
    take(count) {
      const taken = values.slice(at, at + count) as DecodedArray;
      at += count;
      return taken;
    },
  };
}

/** PLAIN values read from the page as they are asked for: a BYTE_ARRAY value is a view of the page until converted. */
function plainValues(reader: DataReader, decoder: ColumnDecoder): PageValues {
  return { take: (count) => readPlain(reader, decoder.type, count, decoder.element.type_length) };
}

/** PLAIN values decompressed as they are read (parquet-page-stream.ts). */
function streamedValues(stream: StreamedPage, decoder: ColumnDecoder): PageValues {
  return {
    take: (count) => stream.values(decoder.type, count, decoder.element.type_length),
    drop: () => stream.takeReplaced(),
    end: () => stream.finish(),
  };
}

/** A zstd page large enough to be decompressed as its values are read rather than whole. */
function streams(compressed: Uint8Array, size: number, decoder: ColumnDecoder): boolean {
  return decoder.codec === 'ZSTD' && size >= STREAMED_FROM_BYTES && isZstdFrame(compressed);
}

const isLazyPlain = (encoding: string, decoder: ColumnDecoder): boolean => encoding === 'PLAIN' && decoder.type !== 'BOOLEAN';

/** The index after the level entries that complete the current row and hold `rows` more (all of the rest when the page ends first). */
function segmentEnd(page: DataPage, rows: number): number {
  if (page.rep === undefined) return Math.min(page.count, page.at + rows);
  let end = page.at;
  let started = 0;
  for (; end < page.count; end++) {
    if (page.rep[end] !== 0) continue;
    if (started === rows) break;
    started++;
  }
  return end;
}

function countAt(levels: Levels, level: number): number {
  let count = 0;
  for (let i = 0; i < levels.length; i++) if (levels[i] === level) count++;
  return count;
}

/** A column chunk's bytes (from its first page header) and how its values are decoded. */
export class ColumnPages {
  private readonly reader: DataReader;
  private readonly maxDef: number;
  private readonly maxRep: number;
  private dictionary: DecodedArray | undefined;
  private page: DataPage | undefined;
  /** Pages read to their end whose values may still be in the slice last taken. */
  private spent: Uint8Array[] = [];

  constructor(
    chunk: Uint8Array,
    private readonly decoder: ColumnDecoder,
  ) {
    this.reader = { view: new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength), offset: 0 };
    this.maxDef = getMaxDefinitionLevel(decoder.schemaPath);
    this.maxRep = getMaxRepetitionLevel(decoder.schemaPath);
  }

  /**
   * The next `rows` rows' values (fewer only where the chunk ends), as hyparquet's reader
   * assembles them: a row's list is whole even when it runs on into the next page.
   */
  take(rows: number): unknown[] {
    const out: unknown[] = [];
    for (;;) {
      const page = this.page ?? (this.page = this.nextPage());
      if (page === undefined) return out;
      if (page.at >= page.count) {
        page.values.end?.();
        this.spent.push(...(page.values.drop?.() ?? []));
        if (page.owned !== undefined) this.spent.push(page.owned);
        this.page = undefined;
        continue;
      }
      if (out.length >= rows && (page.rep === undefined || page.rep[page.at] === 0)) return out;
      this.assemble(out, page, segmentEnd(page, rows - out.length));
    }
  }

  /**
   * Frees the pages read to their end (and, with `all`, the current one): only once the values
   * taken from them have been written, as a value may be a view of its page.
   */
  release(all = false): void {
    this.spent.push(...(this.page?.values.drop?.() ?? []));
    for (const bytes of this.spent) freeBuffer(bytes);
    this.spent = [];
    if (all) {
      freeBuffer(this.page?.owned);
      this.page = undefined;
    }
  }

  private assemble(out: unknown[], page: DataPage, end: number): void {
    const def = page.def?.subarray(page.at, end);
    const rep = page.rep?.subarray(page.at, end);
    const raw = page.values.take(def === undefined ? end - page.at : countAt(def, this.maxDef));
    page.at = end;
    const values = convertWithDictionary(raw, this.dictionary, page.encoding as never, this.decoder);
    // A value of a top-level column is its row's; hyparquet returns such values as they are.
    if (def === undefined && rep === undefined && (this.maxDef === 0 || this.decoder.schemaPath.length <= 2)) {
      for (let i = 0; i < values.length; i++) out.push(values[i]);
      return;
    }
    // Levels left out are all at their maximum, as hyparquet takes them. It reads levels as
    // number arrays; typed arrays index alike.
    assembleLists(out, (def ?? []) as number[], (rep ?? []) as unknown as number[], values, this.decoder.schemaPath);
  }

  /** The next data page, its dictionary page read on the way; undefined at the chunk's end. */
  private nextPage(): DataPage | undefined {
    const reader = this.reader;
    while (reader.offset < reader.view.byteLength - 1) {
      const header = parquetHeader(reader);
      if (header.type === 'DICTIONARY_PAGE') {
        const { data } = readPage(reader, header, this.decoder, undefined, undefined, 0);
        if (data) this.dictionary = convert(data, this.decoder);
      } else if (header.type === 'DATA_PAGE' || header.type === 'DATA_PAGE_V2') {
        const bytes = new Uint8Array(reader.view.buffer, reader.view.byteOffset + reader.offset, header.compressed_page_size);
        reader.offset += header.compressed_page_size;
        return header.type === 'DATA_PAGE' ? this.pageV1(bytes, header) : this.pageV2(bytes, header);
      } else {
        // hyparquet's refusal of a page type it cannot read (an index page), with its message.
        readPage(reader, header, this.decoder, undefined, undefined, 0);
      }
    }
    return undefined;
  }

  private pageV1(compressed: Uint8Array, header: PageHeader): DataPage {
    const daph = header.data_page_header;
    if (!daph) throw new Error('parquet data page header is undefined');
    const { codec, compressors } = this.decoder;
    const size = Number(header.uncompressed_page_size);
    const count = daph.num_values;
    if (isLazyPlain(daph.encoding, this.decoder) && streams(compressed, size, this.decoder)) return this.streamedV1(compressed, size, count, daph.encoding);
    const bytes = decompressPage(compressed, size, codec, compressors);
    if (!isLazyPlain(daph.encoding, this.decoder)) {
      const { definitionLevels, repetitionLevels, dataPage } = readDataPage(bytes, daph, this.decoder);
      return this.decoded(count, daph.encoding, definitionLevels, repetitionLevels, dataPage);
    }
    const reader = { view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), offset: 0 };
    const rep = this.maxRep > 0 ? this.levels(reader, this.maxRep, count) : undefined;
    const def = this.maxDef > 0 ? this.levels(reader, this.maxDef, count) : undefined;
    return { rep, def, count, at: 0, encoding: daph.encoding, values: plainValues(reader, this.decoder), ...(bytes === compressed ? {} : { owned: bytes }) };
  }

  private pageV2(compressed: Uint8Array, header: PageHeader): DataPage {
    const daph = header.data_page_header_v2;
    if (!daph) throw new Error('parquet data page header v2 is undefined');
    const count = daph.num_values;
    if (!isLazyPlain(daph.encoding, this.decoder)) {
      const { definitionLevels, repetitionLevels, dataPage } = readDataPageV2(compressed, header, this.decoder);
      return this.decoded(count, daph.encoding, definitionLevels, repetitionLevels, dataPage);
    }
    const reader = { view: new DataView(compressed.buffer, compressed.byteOffset, compressed.byteLength), offset: 0 };
    const repBytes = daph.repetition_levels_byte_length;
    const defBytes = daph.definition_levels_byte_length;
    const rep = this.maxRep > 0 ? this.levels(reader, this.maxRep, count, repBytes) : undefined;
    reader.offset = repBytes;
    const def = this.maxDef > 0 ? this.levels(reader, this.maxDef, count, defBytes) : undefined;
    const stored = compressed.subarray(repBytes + defBytes);
    const valueBytes = header.uncompressed_page_size - repBytes - defBytes;
    if (daph.is_compressed !== false && streams(stored, valueBytes, this.decoder)) {
      return { rep, def, count, at: 0, encoding: daph.encoding, values: streamedValues(new StreamedPage(stored, valueBytes), this.decoder) };
    }
    // A page with no values may have no compressed bytes, which is not a valid stream.
    const bytes = daph.is_compressed !== false && valueBytes ? decompressPage(stored, valueBytes, this.decoder.codec, this.decoder.compressors) : stored;
    const values = plainValues({ view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), offset: 0 }, this.decoder);
    return { rep, def, count, at: 0, encoding: daph.encoding, values, ...(bytes === stored ? {} : { owned: bytes }) };
  }

  /** A V1 page whose levels and values are decompressed as they are read. */
  private streamedV1(compressed: Uint8Array, size: number, count: number, encoding: string): DataPage {
    const stream = new StreamedPage(compressed, size);
    let rep: Levels | undefined;
    let def: Levels | undefined;
    if (this.maxRep > 0) stream.levels(bitWidth(this.maxRep), (rep = levelArray(count, this.maxRep)));
    if (this.maxDef > 0) stream.levels(bitWidth(this.maxDef), (def = levelArray(count, this.maxDef)));
    return { rep, def, count, at: 0, encoding, values: streamedValues(stream, this.decoder) };
  }

  /** RLE/bit-packed levels; `byteLength` given in a V2 page, else read before them (V1). */
  private levels(reader: DataReader, maxLevel: number, count: number, byteLength?: number): Levels {
    const out = levelArray(count, maxLevel);
    readRleBitPackedHybrid(reader, bitWidth(maxLevel), out, byteLength);
    return out;
  }

  private decoded(count: number, encoding: string, def: ArrayLike<number> | undefined, rep: ArrayLike<number>, values: DecodedArray): DataPage {
    return { rep: levelsOf(rep, this.maxRep), def: levelsOf(def, this.maxDef), count, at: 0, encoding, values: decodedValues(values) };
  }
}
