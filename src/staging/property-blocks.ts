/**
 * Events' properties stored in compressed blocks (table property_blocks, see
 * property-block-codec.ts), and the SQL functions every staging connection reads them with.
 *
 * A row's `properties` is one of: JSON text (files staged before schema v3), JSONB (rows staged
 * since, and every row changed after staging: a session id or a stamp set with jsonb_set is
 * written unpacked), or a reference to row i of a block. SQL reads it through
 * `propertiesSql(column)` (a value SQLite's JSON functions take) or `propertiesTextSql(column)`
 * (the JSON text as staged). A function cannot run a statement on its own connection, so the
 * block's bytes come in through a subquery that asks for them only when the connection's cache
 * of unpacked blocks does not hold that block: a page of rows from one block unpacks it once.
 *
 * Block ids are random (48 bits, checked unused when a block is opened), never a count: a block
 * cached and then undone with its transaction could otherwise have its id given to another
 * block, and the cache would answer with the undone block's rows.
 */
import { randomInt } from 'node:crypto';
import type { Database, Statement } from '../sqlite/database.js';
import { BLOCK_ID_LIMIT, BLOCK_ROWS, BLOCK_TEXT_BYTES, blockRef, compressBlock, packBlock, refBlockId, refIndex, UnpackedBlock } from './property-block-codec.js';

/** Unpacked bytes the cache keeps per connection (the least recently used blocks leave first). */
const CACHE_BYTES = 16 * 1024 * 1024;

interface Block {
  row(index: number): Uint8Array | undefined;
  text(index: number): string | undefined;
  readonly size: number;
}

/** The open block's rows, before it is packed: read through the cache like any other. */
class PendingBlock implements Block {
  readonly texts: Uint8Array[] = [];
  size = 0;

  row(index: number): Uint8Array | undefined {
    return this.texts[index];
  }

  text(index: number): string | undefined {
    const bytes = this.texts[index];
    return bytes === undefined ? undefined : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  }
}

/** A connection's unpacked blocks, least recently used first. */
export class PropertyBlockCache {
  /**
   * @param maxBlocks most blocks held, whatever their size: a connection that reads blocks in
   *   order (import's reader, after send-order-repack.ts) needs few, and small blocks (rows of a
   *   few hundred bytes) would otherwise fill the 16 MB with blocks it never reads again.
   */
  constructor(private readonly maxBlocks = Number.POSITIVE_INFINITY) {}

  /** Each block with the bytes it was counted for when put. */
  private readonly blocks = new Map<number, { block: Block; size: number }>();
  private bytes = 0;
  private last: number | undefined;
  /** The writer's open block: never evicted, its rows are in no table yet. */
  private pinned: number | undefined;

  pin(id: number | undefined): void {
    this.pinned = id;
  }

  has(id: number): boolean {
    return this.blocks.has(id);
  }

  get(id: number): Block | undefined {
    const entry = this.blocks.get(id);
    if (entry !== undefined && this.last !== id) {
      this.blocks.delete(id);
      this.blocks.set(id, entry);
      this.last = id;
    }
    return entry?.block;
  }

  put(id: number, block: Block): void {
    this.drop(id);
    this.blocks.set(id, { block, size: block.size });
    this.last = id;
    this.bytes += block.size;
    for (const oldest of this.blocks.keys()) {
      if (this.bytes <= CACHE_BYTES && this.blocks.size <= this.maxBlocks) break;
      if (oldest !== id && oldest !== this.pinned) this.drop(oldest);
    }
  }

  /** Drops every block but the writer's open one (a pass that read many is over). */
  clear(): void {
    for (const id of [...this.blocks.keys()]) if (id !== this.pinned) this.drop(id);
  }

  drop(id: number): void {
    const entry = this.blocks.get(id);
    if (entry === undefined) return;
    this.blocks.delete(id);
    this.bytes -= entry.size;
    if (this.last === id) this.last = undefined;
  }
}

function unpacked(cache: PropertyBlockCache, id: number, data: unknown): Block {
  const cached = cache.get(id);
  if (cached !== undefined) return cached;
  if (!(data instanceof Uint8Array)) throw new Error(`staged properties refer to block ${id}, which is not in the staging file`);
  const block = UnpackedBlock.fromStored(data);
  cache.put(id, block);
  return block;
}

function missingRow(ref: Buffer, id: number): Error {
  return new Error(`staged properties refer to row ${refIndex(ref)} of block ${id}, which it does not have`);
}

function blockRowText(cache: PropertyBlockCache, ref: Buffer, id: number, data: unknown): string {
  const text = unpacked(cache, id, data).text(refIndex(ref));
  if (text === undefined) throw missingRow(ref, id);
  return text;
}

function blockRowBytes(cache: PropertyBlockCache, ref: Buffer, id: number, data: unknown): Uint8Array {
  const bytes = unpacked(cache, id, data).row(refIndex(ref));
  if (bytes === undefined) throw missingRow(ref, id);
  return bytes;
}

/**
 * Registers the functions propertiesSql and propertiesTextSql use on `db`; returns the cache
 * they share (the writer puts its open block in it).
 */
export function registerPropertyFunctions(db: Database, maxBlocks?: number): PropertyBlockCache {
  const cache = new PropertyBlockCache(maxBlocks);
  // A statement often reads several properties of one row: its text is decoded once.
  let lastRef: Buffer | undefined;
  let lastText = '';
  const rowText = (ref: Buffer, id: number, data: unknown): string => {
    if (lastRef !== undefined && ref.equals(lastRef)) return lastText;
    lastText = blockRowText(cache, ref, id, data);
    lastRef = Buffer.from(ref);
    return lastText;
  };
  db.function('property_block_wanted', (value: unknown) => {
    const id = refBlockId(value);
    return id === undefined || cache.has(id) ? null : id;
  });
  // A value that is not a reference comes back as it is (text, or JSONB for the JSON functions).
  db.function('event_properties', (value: unknown, data: unknown) => {
    const id = refBlockId(value);
    return id === undefined ? value : rowText(value as Buffer, id, data);
  });
  // The text; null for JSONB, which SQL turns into text with json().
  db.function('event_properties_text', (value: unknown, data: unknown) => {
    const id = refBlockId(value);
    if (id === undefined) return typeof value === 'string' ? value : null;
    return rowText(value as Buffer, id, data);
  });
  // The text's UTF-8 bytes as a blob, never decoded into a string (import's pages: see
  // propertiesBytesSql); text as it is; null for JSONB.
  db.function('event_properties_bytes', (value: unknown, data: unknown) => {
    const id = refBlockId(value);
    if (id === undefined) return typeof value === 'string' ? value : null;
    return blockRowBytes(cache, value as Buffer, id, data);
  });
  return cache;
}

function blockData(column: string): string {
  return `(SELECT data FROM property_blocks WHERE id = property_block_wanted(${column}))`;
}

/** A block row's properties as the UTF-8 bytes of its text (a blob), for SQL that only moves them. */
export function blockRowBytesSql(column: string): string {
  return `event_properties_bytes(${column}, ${blockData(column)})`;
}

/** An event's properties as a value SQLite's JSON functions read (`->>`, json_each, jsonb_set). */
export function propertiesSql(column: string): string {
  return `event_properties(${column}, ${blockData(column)})`;
}

/** An event's properties as the JSON text staged. */
export function propertiesTextSql(column: string): string {
  return `coalesce(event_properties_text(${column}, ${blockData(column)}), json(${column}))`;
}

/**
 * An event's properties as the JSON text staged, for SQL that only copies it into a larger text
 * (import's pages): a row of a block goes from the block's bytes to SQLite without being decoded
 * into a JavaScript string and encoded back (that cost import a third of its page reads).
 */
export function propertiesBytesSql(column: string): string {
  return `coalesce(CAST(event_properties_bytes(${column}, ${blockData(column)}) AS TEXT), json(${column}))`;
}

/**
 * Packs the properties of the rows a writer stages into blocks: the event writer's batches and
 * the rows the passes derive (see derived-rows.ts). A block is only ever written in the
 * transaction (or savepoint) that wrote its rows: the writer closes the open block before the end
 * of each batch (`within`), so a batch undone takes its block with it.
 */
export class PropertyBlockWriter {
  private readonly insert: Statement;
  private readonly exists: Statement;
  private id: number | undefined;
  private pending = new PendingBlock();

  constructor(
    db: Database,
    private readonly cache: PropertyBlockCache,
  ) {
    this.insert = db.prepare('INSERT INTO property_blocks (id, data) VALUES (?, ?)');
    this.exists = db.prepare('SELECT 1 FROM property_blocks WHERE id = ?').pluck();
  }

  /** The reference for the open block's row `offset` rows past those added. */
  ref(offset: number): Buffer {
    if (this.id === undefined) this.open();
    return blockRef(this.id!, this.pending.texts.length + offset);
  }

  /** The reference for the next row's properties: in the open block, or a new one when it is full. */
  nextRef(): Buffer {
    if (!this.hasRoomFor(1)) this.close();
    return this.ref(0);
  }

  /**
   * Runs `work`, which stages rows into blocks, in the caller's transaction: the open block is
   * written when `work` returns and forgotten either way (when it throws, its transaction is
   * undone, with the blocks it wrote), so no block is left open past the transaction.
   */
  within<T>(work: () => T): T {
    try {
      const result = work();
      this.close();
      return result;
    } finally {
      this.discard();
    }
  }

  /** Adds the texts of rows staged with refs from `ref` (in the same order). */
  add(text: Uint8Array): void {
    this.pending.texts.push(text);
    this.pending.size += text.length;
  }

  /** False when the open block should be closed before `rows` more rows are added. */
  hasRoomFor(rows: number): boolean {
    return this.pending.texts.length + rows <= BLOCK_ROWS && this.pending.size < BLOCK_TEXT_BYTES;
  }

  /** Writes the open block (if it has rows); the next row opens another. */
  close(): void {
    const id = this.id;
    if (id === undefined) return;
    const texts = this.pending.texts;
    this.reset();
    if (texts.length === 0) return;
    // Not kept in the cache: a block just written is seldom read again soon (a repeated row's
    // earlier version), and the cache's room is better spent on the blocks a pass reads.
    this.insert.run(id, compressBlock(packBlock(texts)));
  }

  /** Forgets the open block, when its rows were undone. */
  discard(): void {
    this.reset();
  }

  private open(): void {
    let id = randomInt(1, BLOCK_ID_LIMIT);
    while (this.exists.get(id) !== undefined) id = randomInt(1, BLOCK_ID_LIMIT);
    this.id = id;
    this.pending = new PendingBlock();
    this.cache.put(id, this.pending);
    this.cache.pin(id);
  }

  private reset(): void {
    this.cache.pin(undefined);
    if (this.id !== undefined) this.cache.drop(this.id);
    this.id = undefined;
    this.pending = new PendingBlock();
  }
}
