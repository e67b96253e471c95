// The measured steps. Each runs its subject as a child process (measureNode) and returns the
// figures bench-report.mjs evaluates; the import and the peer talk to a sandbox of their own.
import { copyFileSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { measureNode } from './measure-process.mjs';
import { startSandbox } from './sandbox-process.mjs';
import { zipTextBytes } from './zip-text-bytes.mjs';

/**
 * @typedef {object} BenchPaths
 * @property {string} root the checkout
 * @property {string} cli bin/migrate.js
 * @property {string} work .bench/
 * @property {string} config the import's config, pointing at the sandbox
 */

/**
 * The files of one format's source: the generated source (and its counts beside it), the
 * staging file export-source writes (left as exported) and a copy the import marks delivered.
 * @typedef {object} FormatFiles
 * @property {string} format
 * @property {string} source
 * @property {string} meta
 * @property {string} staged
 * @property {string} imported
 */

const EXTENSIONS = { csv: 'csv', 'csv-nested': 'csv', jsonl: 'jsonl', mixpanel: 'jsonl', amplitude: 'zip', posthog: 'jsonl', 'posthog-parquet': 'parquet.zst', avro: 'avro' };

/**
 * @param {string} work
 * @param {string} format
 * @param {number} events
 * @returns {FormatFiles}
 */
export function formatFiles(work, format, events) {
  // The flat CSV keeps the name of the earlier runs' single source.
  const base = format === 'csv' ? `source-${events}` : `${format}-${events}`;
  const source = join(work, `${base}.${EXTENSIONS[/** @type {keyof typeof EXTENSIONS} */ (format)]}`);
  return { format, source, meta: `${source}.meta.json`, staged: join(work, `staged-${base}.db`), imported: join(work, `imported-${base}.db`) };
}

/**
 * What the generator says staging must make of the source's rows.
 * @param {FormatFiles} f
 * @returns {{ events: number, files: number, expect: import('./bench-report.mjs').Counts }}
 */
export function readMeta(f) {
  return JSON.parse(readFileSync(f.meta, 'utf8'));
}

/** @param {string} file the staging file with the journal files SQLite may leave beside it */
export function stagingFiles(file) {
  return [file, `${file}-wal`, `${file}-shm`, `${file}.lock`];
}

/** @param {string} file */
export function removeStaging(file) {
  for (const f of stagingFiles(file)) rmSync(f, { force: true });
}

/** @param {string} file bytes on disk of a staging file, its write-ahead log included */
function stagingBytes(file) {
  return stagingFiles(file)
    .slice(0, 2)
    .reduce((sum, f) => sum + (existsSync(f) ? statSync(f).size : 0), 0);
}

/** The child's stdout, which is one JSON document. @param {string} stdout @param {string} label */
export function parseJson(stdout, label) {
  try {
    return JSON.parse(stdout);
  } catch {
    throw new Error(`${label} did not print JSON: ${stdout.slice(0, 500)}`);
  }
}

/** The bare pass over each format's file: csv-parse for the CSVs, hyparquet for Parquet, avsc for Avro, readline and JSON.parse for the rest. */
const FLOOR_SCRIPTS = { csv: 'csv-parse-floor.mjs', 'csv-nested': 'csv-parse-floor.mjs', 'posthog-parquet': 'parquet-floor.mjs', avro: 'avro-floor.mjs' };

/** @param {BenchPaths} p @param {FormatFiles} f */
export async function floorStep(p, f) {
  const script = FLOOR_SCRIPTS[/** @type {keyof typeof FLOOR_SCRIPTS} */ (f.format)] ?? 'json-parse-floor.mjs';
  const m = await measureNode([join(p.root, 'bench', script), f.source], { label: `${f.format} floor` });
  return { rows: parseJson(m.stdout, `${f.format} floor`).rows, wallMs: m.wallMs, peakRssBytes: m.peakRssBytes };
}

/** @param {BenchPaths} p @param {FormatFiles} f */
export async function exportStep(p, f) {
  removeStaging(f.staged);
  const from = f.format === 'csv-nested' ? 'csv' : f.format === 'posthog-parquet' ? 'posthog' : f.format;
  const m = await measureNode([p.cli, 'export-source', '--from', from, f.source, '--staging', f.staged, '--quiet', '--json'], { label: `migrate export-source --from ${from}` });
  const totals = parseJson(m.stdout, 'migrate export-source').totals;
  const got = { staged: totals.staged, rejected: totals.rejected, skipped: totals.skipped, duplicates: totals.duplicates };
  return {
    rows: totals.rowsRead,
    wallMs: m.wallMs,
    peakRssBytes: m.peakRssBytes,
    cpuMs: m.cpuMs,
    stagingBytes: stagingBytes(f.staged),
    sourceBytes: statSync(f.source).size,
    ...(f.source.endsWith('.zip') ? { sourceTextBytes: await zipTextBytes(f.source) } : {}),
    expected: readMeta(f).expect,
    got,
  };
}

/** export-source again into the staging file the export step left, the source unchanged. @param {BenchPaths} p @param {FormatFiles} f */
export async function rerunStep(p, f) {
  const m = await measureNode([p.cli, 'export-source', '--from', 'csv', f.source, '--staging', f.staged, '--quiet', '--json'], { label: 'migrate export-source again' });
  return { wallMs: m.wallMs, peakRssBytes: m.peakRssBytes, cpuMs: m.cpuMs, unchanged: parseJson(m.stdout, 'migrate export-source').unchanged.length };
}

/** @param {BenchPaths} p @param {FormatFiles} f @param {number} staged events export-source staged */
export async function importStep(p, f, staged) {
  if (!existsSync(f.staged)) throw new Error(`${f.staged} is missing: run the export step too (or an earlier run with --keep)`);
  if (existsSync(`${f.staged}-wal`)) throw new Error(`${f.staged}-wal exists: is another process using the staging file?`);
  removeStaging(f.imported);
  copyFileSync(f.staged, f.imported);
  const sandbox = await startSandbox(p.cli);
  try {
    const project = { role: 'test', host: sandbox.url, apiKey: sandbox.testProject.apiKey, projectId: String(sandbox.testProject.id) };
    writeFileSync(p.config, JSON.stringify({ projects: { test: project } }, null, 2));
    const args = [p.cli, 'import', '--project', 'test', '--staging', f.imported, '--config', p.config, '--max-rate', '0', '--quiet', '--json'];
    const m = await measureNode(args, { label: 'migrate import' });
    const summary = parseJson(m.stdout, 'migrate import');
    const stats = await sandbox.stats();
    return {
      events: summary.delivered,
      staged,
      counted: stats.eventsByProject[String(sandbox.testProject.id)] ?? 0,
      wireBytes: summary.wireBytes,
      requests: summary.requests,
      cliEventsPerSec: summary.eventsPerSec,
      wallMs: m.wallMs,
      peakRssBytes: m.peakRssBytes,
    };
  } finally {
    await sandbox.stop();
  }
}

/** @param {BenchPaths} p @param {FormatFiles} f a CSV @param {number} peerEvents */
export async function peerStep(p, f, peerEvents) {
  const sandbox = await startSandbox(p.cli);
  try {
    const args = [join(p.root, 'bench', 'peer-posthog-node.mjs'), f.source, String(peerEvents), sandbox.url, sandbox.testProject.apiKey];
    const m = await measureNode(args, { label: 'posthog-node peer' });
    const result = parseJson(m.stdout, 'posthog-node peer');
    const stats = await sandbox.stats();
    return {
      events: result.events,
      counted: stats.eventsByProject[String(sandbox.testProject.id)] ?? 0,
      bytesSent: result.bytesSent,
      requests: result.requests,
      wallMs: m.wallMs,
      peakRssBytes: m.peakRssBytes,
    };
  } finally {
    await sandbox.stop();
  }
}

/** @param {string} staging @param {BenchPaths} p */
export async function statusStep(staging, p) {
  if (!existsSync(staging)) throw new Error(`${staging} is missing: run the export step too (or an earlier run with --keep)`);
  const m = await measureNode([p.cli, 'status', '--staging', staging], { label: 'migrate status' });
  return { wallMs: m.wallMs, peakRssBytes: m.peakRssBytes };
}
