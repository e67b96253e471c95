/**
 * Rows of files a later full dump replaced (src/staging/replaced-reads.ts), on a real staging
 * file: every unsent row is withdrawn, rows a project received are kept and counted.
 */
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { EventKind } from '../../src/events/staged-event.js';
import { uuidBytes } from '../../src/events/stable-uuid.js';
import { bindProject, DeliveryCheckpoint } from '../../src/staging/delivery-store.js';
import { EventWriter } from '../../src/staging/event-writer.js';
import { startRun } from '../../src/staging/import-runs.js';
import { withdrawReplacedReads } from '../../src/staging/replaced-reads.js';
import { beginRead } from '../../src/staging/source-reads.js';
import { StagingStore } from '../../src/staging/staging-store.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();

function stageRows(store: StagingStore, writer: EventWriter, path: string, numbers: number[]): number {
  const readId = beginRead(store, { path, format: 'heap', command: 'export-source', sizeBytes: 1, options: {} });
  const rows = numbers.map((n) => ({
    line: n,
    raw: 'r',
    event: {
      uuid: uuidBytes(`01900000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`),
      kind: EventKind.event,
      event: 'e',
      distinctId: 'd',
      timestampMs: 1_700_000_000_000 + n,
      propertiesJson: '{}',
    },
  }));
  writer.write(readId, rows);
  return readId;
}

it('withdraws every unsent row of the replaced files and keeps the ones a project received', () => {
  const store = StagingStore.open(join(tempDir(), 's.db'));
  const writer = new EventWriter(store);
  stageRows(store, writer, '/heap/sync_1/pageviews/part-00000.avro', [1, 2, 3, 4]);
  stageRows(store, writer, '/heap/sync_1/pageviews/part-00001.avro', [5, 6]);
  stageRows(store, writer, '/heap/sync_2/pageviews/part-00000.avro', [7]);
  const project = bindProject(store, { name: 'test', role: 'test', host: 'http://127.0.0.1:1' });
  const run = startRun(store, { projectId: project.id, sample: undefined, skipTestFirst: false, settings: {}, configPath: undefined });
  const seqOf = (n: number) => store.db.prepare('SELECT seq FROM events WHERE line = ?').pluck().get(n) as number;
  new DeliveryCheckpoint(store, project.id, run.id).delivered([seqOf(2), seqOf(5)]);

  const replaced = withdrawReplacedReads(store, ['/heap/sync_1/pageviews/part-00000.avro', '/heap/sync_1/pageviews/part-00001.avro', '/heap/never-read.avro']);
  expect(replaced).toEqual({ withdrawn: 4, kept: 2, projects: [{ name: 'test', count: 2 }] });
  expect(store.db.prepare('SELECT line FROM events ORDER BY line').pluck().all()).toEqual([2, 5, 7]);
  expect(store.db.prepare("SELECT count(*) FROM withdrawn_events WHERE reason = 'replaced'").pluck().get()).toBe(4);
  expect(withdrawReplacedReads(store, ['/heap/sync_1/pageviews/part-00000.avro'])).toMatchObject({ withdrawn: 0, kept: 1 });
  store.close();
});
