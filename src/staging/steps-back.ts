/**
 * How many times a block row's timestamp goes back from the one before it of its kind, in
 * staging order: what tells import whether the send order is worth walking (see
 * send-order-repack.ts). Every import start asked it of the whole events table, a scan that grew
 * with the file; the count, where it got to (the last seq, each kind's last time) and the marks
 * of rows taken out are kept in `meta`, so the next count reads only the rows staged since.
 *
 * Rows taken out (withdrawn, a read undone) start the count over: a seq can then be given again,
 * below the one the count got to. A row that stops being a block row (its properties written
 * back unpacked) leaves the count as it was, one step too many at most: rows left out of a
 * sequence never add a step back, so the count stays an upper bound, and an upper bound only
 * makes import walk the send order when it might have skipped it. A block row re-timed (an
 * identity link moved to an earlier meeting) adds two to the count kept: a row's time takes part
 * in two comparisons only, with the row before it of its kind and the one after.
 */
import type { Database } from '../sqlite/database.js';
import { IS_BLOCK_ROW } from './event-json-sql.js';

const KEY = 'send_order_steps_back';

interface StepsMark {
  seq: number;
  steps: number;
  /** Each kind's last timestamp, at `seq`. */
  last: Array<[number, number]>;
  withdrawnId: number;
  failedReads: number;
}

function removalMarks(db: Database): Pick<StepsMark, 'withdrawnId' | 'failedReads'> {
  return db.prepare(`SELECT (SELECT coalesce(max(id), 0) FROM withdrawn_events) AS withdrawnId, (SELECT count(*) FROM source_reads WHERE status = 'failed') AS failedReads`).get() as Pick<
    StepsMark,
    'withdrawnId' | 'failedReads'
  >;
}

function savedMark(db: Database, marks: Pick<StepsMark, 'withdrawnId' | 'failedReads'>): StepsMark | undefined {
  const text = db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(KEY) as string | undefined;
  if (text === undefined) return undefined;
  const mark = JSON.parse(text) as StepsMark;
  return mark.withdrawnId === marks.withdrawnId && mark.failedReads === marks.failedReads ? mark : undefined;
}

export function stepsBack(db: Database): number {
  const marks = removalMarks(db);
  const from = savedMark(db, marks);
  const last = new Map<number, number>(from?.last ?? []);
  let steps = from?.steps ?? 0;
  let seq = from?.seq ?? 0;
  const rows = db.prepare(`SELECT seq, kind, timestamp_ms FROM events WHERE seq > ? AND ${IS_BLOCK_ROW} ORDER BY seq`).raw(true);
  for (const [rowSeq, kind, timestampMs] of rows.iterate(seq) as IterableIterator<[number, number, number]>) {
    if (timestampMs < (last.get(kind) ?? Number.NEGATIVE_INFINITY)) steps++;
    last.set(kind, timestampMs);
    seq = rowSeq;
  }
  if (!db.readonly) {
    const mark: StepsMark = { seq, steps, last: [...last], ...marks };
    db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(KEY, JSON.stringify(mark));
  }
  return steps;
}

/** Keeps the count an upper bound when `rows` block rows already counted were given other times. */
export function addRetimedRows(db: Database, rows: number): void {
  const text = db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(KEY) as string | undefined;
  if (text === undefined) return;
  const mark = JSON.parse(text) as StepsMark;
  mark.steps += 2 * rows;
  db.prepare('UPDATE meta SET value = ? WHERE key = ?').run(JSON.stringify(mark), KEY);
}
