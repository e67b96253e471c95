/** Staging files for integration tests: the bundled sample staged by the real CLI. */
import { copyFileSync, existsSync, mkdtempSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { expect, inject } from 'vitest';
import { openDatabase } from '../../src/sqlite/database.js';
import { uuidText } from '../../src/events/stable-uuid.js';
import { registerPropertyFunctions } from '../../src/staging/property-blocks.js';
import { STAGED_PROPERTIES_TEXT } from './staged-properties.js';
import { FIXTURES, runCli } from './run-cli.js';

export const SAMPLE_CSV = join(FIXTURES, 'sample-events.csv');
export const SAMPLE_EVENTS = 3000;

/** Options that keep subprocess runs fast, for any command that sends or fetches: ~1 ms retry waits, no progress lines. */
export const FAST_RETRIES = ['--retry-initial-ms', '1', '--retry-max-delay-ms', '5', '--quiet'];

/**
 * FAST_RETRIES, and for import, resume and verify a ceiling far above what a test sends: the pace
 * starts at a quarter of a ceiling, so a test's run is not held back by the slow start a run
 * with no ceiling makes (about 0.8 s an import of the sample). The pace has its own tests
 * (pace-simulation, import-pace), which keep the default.
 */
export const FAST = [...FAST_RETRIES, '--max-rate', '1000000'];

async function stageSampleInto(dir: string): Promise<string> {
  const staging = join(dir, 'migration.db');
  const result = await runCli(['export-source', '--from', 'csv', SAMPLE_CSV, '--staging', staging, '--quiet'], { cwd: dir });
  expect(result.code, result.stderr).toBe(0);
  return staging;
}

let sampleTemplate: Promise<string> | undefined;

/**
 * The sample staged once per test run, into global-setup.ts's shared directory: the first
 * worker to want it stages it and moves it there whole (two at once each move a whole file).
 */
export function stagedSampleTemplate(): Promise<string> {
  sampleTemplate ??= (async () => {
    const shared = inject('sharedDir');
    const template = join(shared, 'sample.db');
    if (existsSync(template)) return template;
    const staged = await stageSampleInto(mkdtempSync(join(shared, 'sample-')));
    renameSync(staged, template);
    return template;
  })();
  return sampleTemplate;
}

/**
 * `dir`/migration.db: the bundled sample staged into a new staging file. Staging it is the
 * same every time, so each test gets a copy of one staged file (a second of CPU saved per
 * call); onto an existing staging file it is staged for real.
 */
export async function stageSample(dir: string): Promise<string> {
  const staging = join(dir, 'migration.db');
  if (existsSync(staging)) return stageSampleInto(dir);
  copyFileSync(await stagedSampleTemplate(), staging);
  return staging;
}

/**
 * The staged properties' JSON text without what the staging rules add to every row
 * (`$geoip_disable`, `$import_source`, `$import_run`): for tests about how a source is read.
 */
export const SOURCE_PROPERTIES_SQL = `json_remove(${STAGED_PROPERTIES_TEXT}, '$."$geoip_disable"', '$."$import_source"', '$."$import_run"')`;

/** Reads the staging file directly (read-only), as a check from outside the CLI. */
export function readStaging<T>(staging: string, read: (db: ReturnType<typeof openDatabase>) => T): T {
  const db = openDatabase(staging, { readonly: true });
  registerPropertyFunctions(db);
  try {
    return read(db);
  } finally {
    db.close();
  }
}

export function stagedUuids(staging: string): string[] {
  return readStaging(staging, (db) => (db.prepare('SELECT uuid FROM events ORDER BY seq').all() as Array<{ uuid: Buffer }>).map((r) => uuidText(r.uuid)));
}

export function deliveredCount(staging: string, project: string): number {
  return readStaging(staging, (db) => {
    const row = db.prepare('SELECT count(*) AS n FROM deliveries d JOIN projects p ON p.id = d.project_id WHERE p.name = ?').get(project) as { n: number };
    return row.n;
  });
}

/** The staging file's writer lock row, if any (undefined once released). */
export function writerLock(staging: string): unknown {
  return readStaging(staging, (db) => db.prepare("SELECT value FROM meta WHERE key = 'writer_lock'").get());
}

/** Removes recorded options from every read of the file, as a migrate that did not record them left them. */
export function forgetRecordedOptions(staging: string, keys: readonly string[]): void {
  const db = openDatabase(staging);
  try {
    // A migrate that did not record those options did not record what its sources were either (source_identity came later).
    db.prepare(`UPDATE source_reads SET source_identity = NULL, options = json_remove(options, ${keys.map(() => '?').join(', ')})`).run(...keys.map((key) => `$.${key}`));
  } finally {
    db.close();
  }
}
