/**
 * What `copy-config` has copied, kept in a SQLite file (the staging file by default): for each
 * object, the source and destination project, its kind, source id, destination id, and two
 * content hashes: the source's content when it was copied (a changed source is carried over)
 * and the destination's content as it answered the write (a different one now means a hand
 * edit there, left alone). Its own table, made on first use, outside the staging schema's
 * versions: a staging file gains it without an upgrade, and a new file stays a valid start
 * for `export-source`.
 */
import { openDatabase, type Database } from '../sqlite/database.js';
import type { CopyKind } from './config-kinds.js';

export interface CopyRecord {
  kind: CopyKind;
  sourceId: number;
  destId: number;
  sourceHash: string;
  destHash: string;
}

export interface CopyStateKey {
  /** `apiHost#projectId` of each side. */
  source: string;
  dest: string;
}

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS copy_config_objects (
    source_project TEXT NOT NULL,
    dest_project TEXT NOT NULL,
    kind TEXT NOT NULL,
    source_id INTEGER NOT NULL,
    dest_id INTEGER NOT NULL,
    source_hash TEXT NOT NULL,
    dest_hash TEXT NOT NULL,
    copied_at TEXT NOT NULL,
    PRIMARY KEY (source_project, dest_project, kind, source_id)
  ) WITHOUT ROWID;
`;

interface RecordRow {
  kind: CopyKind;
  source_id: number;
  dest_id: number;
  source_hash: string;
  dest_hash: string;
}

export class CopyState {
  private constructor(
    private readonly db: Database,
    private readonly key: CopyStateKey,
  ) {}

  static open(path: string, key: CopyStateKey): CopyState {
    const db = openDatabase(path);
    db.exec(SCHEMA);
    return new CopyState(db, key);
  }

  /** The records of one kind, by source id. */
  records(kind: CopyKind): Map<number, CopyRecord> {
    const rows = this.db
      .prepare('SELECT kind, source_id, dest_id, source_hash, dest_hash FROM copy_config_objects WHERE source_project = ? AND dest_project = ? AND kind = ?')
      .all(this.key.source, this.key.dest, kind) as RecordRow[];
    return new Map(rows.map((r) => [r.source_id, { kind: r.kind, sourceId: r.source_id, destId: r.dest_id, sourceHash: r.source_hash, destHash: r.dest_hash }]));
  }

  save(record: CopyRecord, atMs: number): void {
    this.db
      .prepare(
        `INSERT INTO copy_config_objects (source_project, dest_project, kind, source_id, dest_id, source_hash, dest_hash, copied_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (source_project, dest_project, kind, source_id) DO UPDATE SET
           dest_id = excluded.dest_id, source_hash = excluded.source_hash, dest_hash = excluded.dest_hash, copied_at = excluded.copied_at`,
      )
      .run(this.key.source, this.key.dest, record.kind, record.sourceId, record.destId, record.sourceHash, record.destHash, new Date(atMs).toISOString());
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
