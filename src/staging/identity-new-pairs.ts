/**
 * The identity pairs of the rows staged since the links pass last ran, recorded by the writer in
 * the transaction that stages the rows (so a read killed mid-way keeps the pairs of exactly the
 * rows it committed): per batch, each (device, user) once with its earliest time, appended to
 * `identity_new_pairs`, a table without an index. The pass merges that table into
 * `identity_pairs` sorted by device and empties it (see identity-store.ts), instead of reading
 * every staged row's properties again.
 */
import type { Statement } from '../sqlite/database.js';
import { isLinkFormat, splitPairKey, type LinkFormat } from '../events/identity-pair.js';
import { EventKind } from '../events/staged-event.js';
import { DISTINCT_ID, NO_PAIR, PAIR_BASE, PAIR_IN_SQL, PROPERTIES, textBytes, type EventBatch } from './event-batch.js';
import { LINK_FORMATS, PAIR_SQL } from './identity-store.js';
import type { StagingStore } from './staging-store.js';

/** One row's pair drawn by the pass's own SQL, from the row's fields as staged. */
function sqlPairInsert(format: LinkFormat): string {
  const { user, device } = PAIR_SQL[format];
  return `INSERT INTO identity_new_pairs (read_id, device, user, first_ms)
    SELECT @readId, device, e.distinct_id, @ms FROM (SELECT ${device} AS device, ${user} AS user, e.distinct_id
      FROM (SELECT jsonb(CAST(@properties AS TEXT)) AS p, CAST(@distinctId AS TEXT) AS distinct_id) e) e
    WHERE user IS NOT NULL AND e.distinct_id = CAST(user AS TEXT) AND device IS NOT NULL`;
}

export class NewPairsWriter {
  private readonly formatOfRead: Statement;
  private readonly insertPairs: Statement;
  private readonly bySql = new Map<LinkFormat, Statement>();
  /** The link format of each read met (null: not a link format). */
  private readonly formats = new Map<number, LinkFormat | null>();

  constructor(store: StagingStore) {
    const db = store.db;
    this.formatOfRead = db.prepare('SELECT s.format FROM source_reads r JOIN sources s ON s.id = r.source_id WHERE r.id = ?').pluck();
    this.insertPairs = db.prepare(`INSERT INTO identity_new_pairs (read_id, device, user, first_ms) SELECT ?, value ->> 0, value ->> 1, value ->> 2 FROM json_each(?)`);
    for (const format of LINK_FORMATS) this.bySql.set(format, db.prepare(sqlPairInsert(format)));
  }

  private formatOf(readId: number): LinkFormat | null {
    let format = this.formats.get(readId);
    if (format === undefined) {
      const name = this.formatOfRead.get(readId) as string | undefined;
      format = name !== undefined && isLinkFormat(name) ? name : null;
      this.formats.set(readId, format);
    }
    return format;
  }

  /** Records the pairs of the rows of `batch` this read staged (`staged[i]` 1), in the caller's transaction. */
  record(readId: number, batch: EventBatch, staged: Uint8Array): void {
    const format = this.formatOf(readId);
    if (format === null) return;
    const earliest = new Map<number, number>();
    for (let i = 0; i < batch.count; i++) {
      if (staged[i] !== 1) continue;
      const pair = batch.pairsDrawn ? batch.pairIndexes[i]! : batch.kinds[i] === EventKind.event ? PAIR_IN_SQL : NO_PAIR;
      if (pair === NO_PAIR) continue;
      const ms = batch.timestampsMs[i]!;
      if (pair === PAIR_IN_SQL) {
        this.bySql.get(format)!.run({ readId, ms, properties: textBytes(batch, i, PROPERTIES), distinctId: textBytes(batch, i, DISTINCT_ID) });
        continue;
      }
      const before = earliest.get(pair);
      if (before === undefined || ms < before) earliest.set(pair, ms);
    }
    if (earliest.size === 0) return;
    const rows: Array<[string, string, number]> = [];
    for (const [index, ms] of earliest) {
      const { device, user } = splitPairKey(batch.pairs[index - PAIR_BASE]!);
      rows.push([device, user, ms]);
    }
    this.insertPairs.run(readId, JSON.stringify(rows));
  }
}
