/**
 * Repacks the property blocks of a project's pending rows in send order, before import reads
 * them. Blocks follow the staging order; import reads in send order (kind, time). For a source in
 * no time order, each row import reads comes from another block, and unpacking a block (up to
 * 512 KB) per row made import 30 times slower. The repack costs a few passes over the rows, each
 * sequential; it runs only when reading in send order would unpack blocks far more often than
 * once each (`sendOrderReads`, which looks at the rows' references only).
 *
 * The steps, each its own transaction, so a kill at any point leaves every row's properties
 * readable (a reference only ever names a block that is committed):
 * 1. copy the rows' texts, read in staging order (one unpack per block), with their send keys
 *    into a scratch database file beside the staging file, and sort them there;
 * 2. pack them in send order into new blocks, a step of rows a transaction; the new references
 *    go to the scratch file, the rows still name their old blocks;
 * 3. point the rows at their new blocks, in seq order, a step of rows a transaction;
 * 4. delete the blocks no row names any more (and the meta marker step 2 set).
 * A run killed after step 2 began leaves the marker: the next run does step 4 first (the new
 * blocks no row names yet, or the old ones no row names any more), then measures again.
 */
import { existsSync, rmSync } from 'node:fs';
import type { Database } from '../sqlite/database.js';
import { IS_BLOCK_ROW } from './event-json-sql.js';
import { refBlockId } from './property-block-codec.js';
import { blockRowBytesSql, PropertyBlockWriter } from './property-blocks.js';
import type { StagingStore } from './staging-store.js';
import { stepsBack } from './steps-back.js';

const MARKER = 'property_repack_unfinished';
/**
 * Blocks import's reading connection keeps unpacked (16 MB of blocks of at most 512 KB): the
 * measure below takes its cache to hold this many, and the reader holds no more (see
 * chunk-reader-worker.ts).
 */
export const IMPORT_CACHE_BLOCKS = 32;
/** Rows a transaction of steps 2 and 3. */
const STEP_ROWS = 16_384;

export interface SendOrderReads {
  /** Rows of blocks pending for the project. */
  rows: number;
  blocks: number;
  /** Blocks import would unpack reading them in send order. */
  unpacks: number;
}

export interface RepackOptions {
  signal?: AbortSignal;
  /** Called after each committed step (tests: a throw here is a run killed between steps). */
  afterStep?: (step: 'copied' | 'packed' | 'pointed') => void;
  /** Blocks import's cache is taken to hold (default IMPORT_CACHE_BLOCKS; tests make it small). */
  cacheBlocks?: number;
  /** Rows a transaction of steps 2 and 3 (default STEP_ROWS; tests make it small). */
  stepRows?: number;
  /** Called when the repack starts (it pays), with what reading in send order would cost. */
  starting?: (reads: SendOrderReads) => void;
}

export interface RepackResult {
  /** Undefined when the rows were in time order (or nearly) and the send order was not walked. */
  before: SendOrderReads | undefined;
  /** Rows given new blocks (0: the order was good enough, or the run was interrupted). */
  repacked: number;
  blocksDeleted: number;
}

/**
 * The block rows not yet delivered nor dead-lettered for the project. The look-ups are left out
 * for a project that has nothing settled (its first run): they cost most of the measure.
 */
function pendingRows(db: Database, projectId: number): string {
  const settled = db.prepare('SELECT EXISTS (SELECT 1 FROM deliveries WHERE project_id = ?) OR EXISTS (SELECT 1 FROM dead_letters WHERE project_id = ?)').pluck().get(projectId, projectId) as number;
  if (!settled) return IS_BLOCK_ROW;
  return `${IS_BLOCK_ROW}
    AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.project_id = ${projectId} AND d.seq = events.seq)
    AND NOT EXISTS (SELECT 1 FROM dead_letters x WHERE x.project_id = ${projectId} AND x.seq = events.seq)`;
}

/** How many blocks reading the project's pending block rows in send order unpacks, with a cache of IMPORT_CACHE_BLOCKS blocks. */
export function sendOrderReads(db: Database, projectId: number, cacheBlocks = IMPORT_CACHE_BLOCKS): SendOrderReads {
  const refs = db.prepare(`SELECT properties FROM events INDEXED BY events_send_order WHERE ${pendingRows(db, projectId)} ORDER BY kind, timestamp_ms, seq`).pluck();
  const cached = new Map<number, true>();
  const seen = new Set<number>();
  let rows = 0;
  let unpacks = 0;
  for (const ref of refs.iterate()) {
    const id = refBlockId(ref)!;
    rows++;
    seen.add(id);
    if (cached.delete(id)) {
      cached.set(id, true);
      continue;
    }
    unpacks++;
    cached.set(id, true);
    if (cached.size > cacheBlocks) cached.delete(cached.keys().next().value!);
  }
  return { rows, blocks: seen.size, unpacks };
}

/** Whether import would unpack blocks so much more often than once each that repacking pays. */
export function repackPays(reads: SendOrderReads, cacheBlocks = IMPORT_CACHE_BLOCKS): boolean {
  return reads.unpacks > 2 * reads.blocks + cacheBlocks;
}

/** Repacks the project's pending rows in send order when it pays (see the file's comment). */
export function repackInSendOrder(store: StagingStore, projectId: number, options: RepackOptions = {}): RepackResult {
  let blocksDeleted = isUnfinished(store) ? deleteUnnamedBlocks(store) : 0;
  const cacheBlocks = options.cacheBlocks ?? IMPORT_CACHE_BLOCKS;
  // Fewer steps back than the blocks import's cache holds: the send order cannot switch between
  // more runs of rows than the cache holds (rows left out of a sequence never add a step back).
  if (stepsBack(store.db) < cacheBlocks / 2) return { before: undefined, repacked: 0, blocksDeleted };
  const before = sendOrderReads(store.db, projectId, cacheBlocks);
  if (!repackPays(before, options.cacheBlocks) || options.signal?.aborted) return { before, repacked: 0, blocksDeleted };
  options.starting?.(before);
  const scratch = `${store.path}-repack`;
  rmSync(scratch, { force: true });
  const db = store.db;
  db.prepare('ATTACH ? AS repack').run(scratch);
  try {
    // The sorts spill to temporary files rather than memory (the rows may be gigabytes).
    return store.bulk(() => {
      db.pragma('repack.journal_mode = OFF');
      db.pragma('repack.synchronous = OFF');
      const rows = copySorted(db, projectId);
      options.afterStep?.('copied');
      if (options.signal?.aborted || !pack(store, rows, options) || !point(store, options)) return { before, repacked: 0, blocksDeleted };
      blocksDeleted += deleteUnnamedBlocks(store);
      return { before, repacked: rows, blocksDeleted };
    });
  } finally {
    db.prepare('DETACH repack').run();
    if (existsSync(scratch)) rmSync(scratch, { force: true });
  }
}

/** Step 1: the pending rows' texts in send order (repack.sorted, by id); returns how many. */
function copySorted(db: Database, projectId: number): number {
  db.exec('CREATE TABLE repack.staged (kind INTEGER, timestamp_ms INTEGER, seq INTEGER, text BLOB)');
  db.prepare(`INSERT INTO repack.staged SELECT kind, timestamp_ms, seq, ${blockRowBytesSql('properties')} FROM main.events NOT INDEXED WHERE ${pendingRows(db, projectId)} ORDER BY seq`).run();
  db.exec('CREATE TABLE repack.sorted (id INTEGER PRIMARY KEY, seq INTEGER NOT NULL, text BLOB NOT NULL)');
  const rows = db.prepare('INSERT INTO repack.sorted (seq, text) SELECT seq, text FROM repack.staged ORDER BY kind, timestamp_ms, seq').run().changes;
  db.exec('DROP TABLE repack.staged');
  db.exec('CREATE TABLE repack.new_refs (seq INTEGER NOT NULL, ref BLOB NOT NULL)');
  return rows;
}

/** Step 2: new blocks in send order, a transaction per STEP_ROWS rows; false when interrupted. */
function pack(store: StagingStore, rows: number, options: RepackOptions): boolean {
  const db = store.db;
  const page = db.prepare('SELECT id, seq, text FROM repack.sorted WHERE id > ? ORDER BY id LIMIT ?').raw(true);
  const record = db.prepare('INSERT INTO repack.new_refs (seq, ref) VALUES (?, ?)');
  const mark = db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?, 'yes')");
  const writer = new PropertyBlockWriter(db, store.propertyBlocks);
  for (let after = 0; after < rows; ) {
    if (options.signal?.aborted) return false;
    store.transaction(() =>
      writer.within(() => {
        mark.run(MARKER);
        for (const [id, seq, text] of page.all(after, options.stepRows ?? STEP_ROWS) as Array<[number, number, Uint8Array]>) {
          record.run(seq, writer.nextRef());
          writer.add(text);
          after = id;
        }
      }),
    );
    options.afterStep?.('packed');
  }
  return true;
}

/** Step 3: each row pointed at its new block, in seq order, a transaction per STEP_ROWS rows; false when interrupted. */
function point(store: StagingStore, options: RepackOptions): boolean {
  const db = store.db;
  db.exec('CREATE TABLE repack.refs (seq INTEGER PRIMARY KEY, ref BLOB NOT NULL)');
  db.exec('INSERT INTO repack.refs SELECT seq, ref FROM repack.new_refs ORDER BY seq');
  db.exec('DROP TABLE repack.new_refs');
  const page = db.prepare('SELECT seq, ref FROM repack.refs WHERE seq > ? ORDER BY seq LIMIT ?').raw(true);
  const update = db.prepare('UPDATE main.events SET properties = ? WHERE seq = ?');
  for (let after = -1; ; ) {
    if (options.signal?.aborted) return false;
    const refs = page.all(after, options.stepRows ?? STEP_ROWS) as Array<[number, Buffer]>;
    if (refs.length === 0) return true;
    store.transaction(() => {
      for (const [seq, ref] of refs) update.run(ref, seq);
    });
    after = refs[refs.length - 1]![0];
    options.afterStep?.('pointed');
  }
}

function isUnfinished(store: StagingStore): boolean {
  return store.db.prepare('SELECT 1 FROM meta WHERE key = ?').pluck().get(MARKER) !== undefined;
}

/** Step 4: deletes the blocks no row names, and the marker, in one transaction; returns how many. */
function deleteUnnamedBlocks(store: StagingStore): number {
  const db = store.db;
  return store.transaction(() => {
    const named = new Set<number>();
    for (const ref of db.prepare(`SELECT properties FROM main.events NOT INDEXED WHERE ${IS_BLOCK_ROW}`).pluck().iterate()) named.add(refBlockId(ref)!);
    const unnamed = (db.prepare('SELECT id FROM main.property_blocks').pluck().all() as number[]).filter((id) => !named.has(id));
    const remove = db.prepare('DELETE FROM main.property_blocks WHERE id = ?');
    for (const id of unnamed) {
      remove.run(id);
      store.propertyBlocks.drop(id);
    }
    db.prepare('DELETE FROM meta WHERE key = ?').run(MARKER);
    return unnamed.length;
  });
}
