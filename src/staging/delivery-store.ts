/**
 * Per-project delivery records in the staging file: which project name is bound to which host,
 * what is still to send (read page by page in send order), and the checkpoint written after
 * each chunk the server accepted: deliveries rows and counters in one transaction.
 */
import { isUtf8 } from 'node:buffer';
import type { SendCursor } from '../delivery/chunk-stream.js';
import { DEFAULT_SEND_ORDER } from '../delivery/send-order.js';
import type { EncodedEvent } from '../delivery/event-encoding.js';
import { uuidText } from '../events/stable-uuid.js';
import type { Statement } from '../sqlite/database.js';
import type { StagingStore } from './staging-store.js';
import { PAGE_META_BYTES, PAGE_META_NUMBERS, selectEventJsonPage, selectEventJsonParts, STAGED_JSON_COLUMN } from './event-json-sql.js';
import { PropertyBlockReader, spliceBlockRows } from './page-properties.js';

export interface ProjectRecord {
  id: number;
  name: string;
  role: 'test' | 'production';
  host: string;
  createdAt: string;
  delivered: number;
  deadLetters: number;
}

const PROJECT_COLUMNS = 'id, name, role, host, created_at AS createdAt, delivered, dead_letters AS deadLetters';

export function findProjectRecord(store: StagingStore, name: string): ProjectRecord | undefined {
  return store.db.prepare(`SELECT ${PROJECT_COLUMNS} FROM projects WHERE name = ?`).get(name) as ProjectRecord | undefined;
}

export function listProjectRecords(store: StagingStore): ProjectRecord[] {
  return store.db.prepare(`SELECT ${PROJECT_COLUMNS} FROM projects ORDER BY id`).all() as ProjectRecord[];
}

/**
 * Records a project name with its host and role (call after the rules allowed it). Until the
 * project accepted anything (dead letters do not count), a changed host or role replaces the
 * old one.
 */
export function bindProject(store: StagingStore, target: { name: string; role: string; host: string }): ProjectRecord {
  store.db
    .prepare(
      `INSERT INTO projects (name, role, host, created_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET host = excluded.host, role = excluded.role WHERE delivered = 0`,
    )
    .run(target.name, target.role, target.host, new Date().toISOString());
  return findProjectRecord(store, target.name)!;
}

/**
 * Makes a project's dead letters pending again, keeping each old row with the run that
 * released it (`retry`: import --retry-dead-letters; `host-changed`: they were refused by a
 * host the project no longer points to). Returns how many were released.
 */
export function releaseDeadLetters(store: StagingStore, projectId: number, runId: number, reason: 'retry' | 'host-changed'): number {
  return store.transaction(() => {
    store.db
      .prepare(
        `INSERT INTO released_dead_letters (project_id, seq, run_id, status, message, created_at, released_by_run, released_at, reason)
         SELECT project_id, seq, run_id, status, message, created_at, @runId, @now, @reason FROM dead_letters WHERE project_id = @projectId`,
      )
      .run({ projectId, runId, reason, now: new Date().toISOString() });
    const released = store.db.prepare('DELETE FROM dead_letters WHERE project_id = ?').run(projectId).changes;
    store.db.prepare('UPDATE projects SET dead_letters = dead_letters - ? WHERE id = ?').run(released, projectId);
    store.db.prepare('UPDATE import_runs SET dead_letters_released = dead_letters_released + ? WHERE id = ?').run(released, runId);
    return released;
  });
}

/** Every staged event, all kinds, from the counters (no scan). */
export function totalStaged(store: StagingStore): number {
  return (store.db.prepare('SELECT coalesce(sum(count), 0) AS n FROM event_names').get() as { n: number }).n;
}

/** Test projects of this staging file that accepted at least one event. */
export function acceptedTestProjects(store: StagingStore): Array<{ name: string; delivered: number }> {
  return store.db.prepare("SELECT name, delivered FROM projects WHERE role = 'test' AND delivered > 0 ORDER BY id").all() as Array<{
    name: string;
    delivered: number;
  }>;
}

/**
 * Pages of events not yet delivered nor dead-lettered for a project, in send order (the kinds
 * in the order given, see send-order.ts; each kind by timestamp, then seq), each with its JSON
 * built by SQLite (see event-json-sql.ts). Keyset pagination: better-sqlite3 cannot run the
 * checkpoint's writes while a statement iterates, so each page is read whole and the next
 * starts after its last row. Each kind is read through the send-order index (kind,
 * timestamp_ms). Rows settled after a page was made must be rows it returned.
 */
export class PendingEvents {
  private readonly pageStatement: Statement;
  private readonly rowStatement: Statement;
  private readonly begin: Statement;
  private readonly end: Statement;
  private pagesInSnapshot = 0;
  private readonly blockRows: PropertyBlockReader;

  /**
   * @param snapshotPages read this many pages in one read transaction (default 1: each page
   *   its own). For a connection that only reads while another writes the checkpoints: every
   *   read transaction that starts after a commit throws the connection's page cache away, so
   *   a page of its own each time read every page again from the file. Reading several pages
   *   in one snapshot is safe for the same reason as above: rows settled meanwhile were read.
   * @param order the kinds, in the order they are sent.
   */
  constructor(
    private readonly store: StagingStore,
    private readonly projectId: number,
    private readonly snapshotPages = 1,
    private readonly order: readonly number[] = DEFAULT_SEND_ORDER,
  ) {
    this.blockRows = new PropertyBlockReader(store.db, store.propertyBlocks);
    this.begin = store.db.prepare('BEGIN');
    this.end = store.db.prepare('COMMIT');
    // What a run delivers or dead-letters comes from pages it already read, all before the
    // cursor (and one import at a time holds the staging lock). So for a project that had
    // nothing settled when the run began, no row after the cursor can be settled, and the
    // per-row look-ups (about a sixth of the read time) are left out.
    const settledBefore = store.db
      .prepare('SELECT EXISTS (SELECT 1 FROM deliveries WHERE project_id = ?) OR EXISTS (SELECT 1 FROM dead_letters WHERE project_id = ?)')
      .pluck()
      .get(projectId, projectId) as number;
    const unsettled = settledBefore
      ? `AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.project_id = @projectId AND d.seq = e.seq)
         AND NOT EXISTS (SELECT 1 FROM dead_letters x WHERE x.project_id = @projectId AND x.seq = e.seq)`
      : '';
    const pending = (columns: string): string => `SELECT ${columns}
       FROM events e
       WHERE e.kind = @kind AND (e.timestamp_ms, e.seq) > (@timestampMs, @seq)
         ${unsettled}
       ORDER BY e.timestamp_ms, e.seq
       LIMIT @limit`;
    this.pageStatement = store.db.prepare(selectEventJsonPage(pending(`e.seq AS seq, e.timestamp_ms AS timestamp_ms, e.sub_ms_us AS sub_ms_us, ${STAGED_JSON_COLUMN}`))).raw(true);
    // Rows come back as arrays: a named object per row costs more than the query itself.
    const rows = pending('e.seq, e.kind, e.timestamp_ms, e.sub_ms_us, e.uuid, e.event, e.distinct_id, e.properties');
    this.rowStatement = store.db.prepare(selectEventJsonParts(rows, ['seq', 'kind', 'timestamp_ms', 'sub_ms_us'])).raw(true);
  }

  page(after: SendCursor | undefined, limit: number): EncodedEvent[] {
    if (this.snapshotPages > 1 && this.pagesInSnapshot === 0) this.begin.run();
    const events: EncodedEvent[] = [];
    // From the cursor's kind on, each kind from its start, until the page is full.
    let turn = after === undefined ? 0 : this.order.indexOf(after.kind);
    let from = after === undefined || turn === -1 ? undefined : after;
    if (turn === -1) turn = this.order.length;
    for (; turn < this.order.length && events.length < limit; turn++, from = undefined) {
      const kind = this.order[turn]!;
      const want = limit - events.length;
      const params = { kind, timestampMs: from?.timestampMs ?? Number.MIN_SAFE_INTEGER, seq: from?.seq ?? -1, projectId: this.projectId, limit: want };
      if (this.readPage(params, events) === want) break;
    }
    if (this.snapshotPages > 1 && (++this.pagesInSnapshot >= this.snapshotPages || events.length < limit)) this.close();
    return events;
  }

  /**
   * Appends the kind's events of one page as staged-json bytes; returns how many. A page the
   * one-blob read cannot give exactly as the row read would (bytes that are not UTF-8, which
   * reading them as text turns into U+FFFD; a page over SQLite's largest value) is read by rows.
   */
  private readPage(params: PageParams, into: EncodedEvent[]): number {
    let answer: [string | null, Buffer | null, string | null];
    try {
      answer = this.pageStatement.get(params) as typeof answer;
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_TOOBIG') return this.readRows(params, into);
      throw error;
    }
    const [meta, stored, refs] = answer;
    if (meta === null || stored === null) return 0;
    const numbers = JSON.parse(`[${meta}]`) as number[];
    if (!isUtf8(stored) || !inSendOrder(numbers, stored.length)) return this.readRows(params, into);
    const json = spliceBlockRows(stored, numbers, refs ?? '', this.blockRows);
    for (let i = 0, start = 0; i < numbers.length; i += PAGE_META_NUMBERS) {
      const end = start + numbers[i + PAGE_META_BYTES]!;
      const subMsUs = numbers[i + 2]!;
      into.push(
        subMsUs === 0
          ? { seq: numbers[i]!, kind: params.kind, timestampMs: numbers[i + 1]!, json, start, end }
          : { seq: numbers[i]!, kind: params.kind, timestampMs: numbers[i + 1]!, subMsUs, json, start, end },
      );
      start = end;
    }
    return numbers.length / PAGE_META_NUMBERS;
  }

  /** Appends the kind's events of one page, read a row each, in text form; returns how many. */
  private readRows(params: PageParams, into: EncodedEvent[]): number {
    const rows = this.rowStatement.all(params) as Array<[number, number, number, number, string, string]>;
    for (const [seq, kind, timestampMs, subMsUs, head, tail] of rows) into.push(subMsUs === 0 ? { seq, kind, timestampMs, head, tail } : { seq, kind, timestampMs, subMsUs, head, tail });
    return rows.length;
  }

  /** Ends the read transaction a page left open, if any. */
  close(): void {
    if (this.pagesInSnapshot === 0) return;
    this.pagesInSnapshot = 0;
    if (this.store.db.inTransaction) this.end.run();
  }
}

interface PageParams {
  kind: number;
  timestampMs: number;
  seq: number;
  projectId: number;
  limit: number;
}

/**
 * Whether a page's (seq, timestamp_ms, sub_ms_us, bytes) numbers are in send order (timestamp, then seq)
 * and their bytes add up to the blob's: SQLite feeds its aggregates the rows in the subquery's
 * order, which nothing in SQL promises; should that ever differ, the page is read by rows.
 */
function inSendOrder(numbers: readonly number[], jsonBytes: number): boolean {
  let bytes = 0;
  for (let i = 0; i < numbers.length; i += PAGE_META_NUMBERS) {
    bytes += numbers[i + PAGE_META_BYTES]!;
    if (i === 0) continue;
    const time = numbers[i + 1]!;
    const lastTime = numbers[i + 1 - PAGE_META_NUMBERS]!;
    if (time < lastTime || (time === lastTime && numbers[i]! <= numbers[i - PAGE_META_NUMBERS]!)) return false;
  }
  return bytes === jsonBytes;
}

export interface DeadLetter {
  seq: number;
  status: number;
  message: string;
}

/** Writes what the server accepted or refused for good, each call one transaction. */
export class DeliveryCheckpoint {
  private readonly insertDeliveries: Statement;
  private readonly insertDeadLetter: Statement;
  private readonly countProject: Statement;
  private readonly countRun: Statement;

  constructor(
    private readonly store: StagingStore,
    private readonly projectId: number,
    private readonly runId: number,
  ) {
    const db = store.db;
    // One statement per chunk: the seqs go in as one JSON array.
    this.insertDeliveries = db.prepare('INSERT OR IGNORE INTO deliveries (project_id, seq) SELECT ?, value FROM json_each(?)');
    this.insertDeadLetter = db.prepare('INSERT OR IGNORE INTO dead_letters (project_id, seq, run_id, status, message, created_at) VALUES (?, ?, ?, ?, ?, ?)');
    this.countProject = db.prepare('UPDATE projects SET delivered = delivered + ?, dead_letters = dead_letters + ? WHERE id = ?');
    this.countRun = db.prepare('UPDATE import_runs SET delivered = delivered + ?, dead_letters = dead_letters + ?, updated_at = ? WHERE id = ?');
  }

  /** Marks events delivered: only ever called after a 2xx for exactly these events. */
  delivered(seqs: readonly number[]): void {
    this.store.transaction(() => {
      const added = this.insertDeliveries.run(this.projectId, `[${seqs.join(',')}]`).changes;
      this.count(added, 0);
    });
  }

  deadLettered(letters: readonly DeadLetter[]): void {
    this.store.transaction(() => {
      const at = new Date().toISOString();
      let added = 0;
      for (const l of letters) added += this.insertDeadLetter.run(this.projectId, l.seq, this.runId, l.status, l.message, at).changes;
      this.count(0, added);
    });
  }

  private count(delivered: number, dead: number): void {
    this.countProject.run(delivered, dead, this.projectId);
    this.countRun.run(delivered, dead, new Date().toISOString(), this.runId);
  }
}

export interface DeadLetterRow {
  project: string;
  uuid: string;
  event: string;
  timestamp: string;
  status: number;
  message: string;
}

export function listDeadLetters(store: StagingStore, limit = -1): DeadLetterRow[] {
  const rows = store.db
    .prepare(
      `SELECT p.name AS project, e.uuid, e.event, e.timestamp_ms AS timestampMs, x.status, x.message
       FROM dead_letters x JOIN projects p ON p.id = x.project_id JOIN events e ON e.seq = x.seq
       ORDER BY p.id, e.kind, e.timestamp_ms, e.seq LIMIT ?`,
    )
    .all(limit) as Array<Omit<DeadLetterRow, 'uuid' | 'timestamp'> & { uuid: Buffer; timestampMs: number }>;
  return rows.map(({ uuid, timestampMs, ...rest }) => ({ ...rest, uuid: uuidText(uuid), timestamp: new Date(timestampMs).toISOString() }));
}
