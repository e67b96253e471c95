// The measured steps. Each runs its subject as a child process (measureNode) and returns the
// figures bench-report.mjs evaluates; the import and the peer talk to a sandbox of their own.
import { copyFileSync, existsSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { measureNode } from './measure-process.mjs';
import { startSandbox } from './sandbox-process.mjs';

/**
 * @typedef {object} BenchPaths
 * @property {string} root the checkout
 * @property {string} cli bin/migrate.js
 * @property {string} work .bench/
 * @property {string} source the generated CSV
 * @property {string} staged the staging file export-source writes (left as exported)
 * @property {string} imported a copy of it that the import marks delivered
 * @property {string} config the import's config, pointing at the sandbox
 */

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
  return stagingFiles(file).slice(0, 2).reduce((sum, f) => sum + (existsSync(f) ? statSync(f).size : 0), 0);
}

/** The child's stdout, which is one JSON document. @param {string} stdout @param {string} label */
function parseJson(stdout, label) {
  try {
    return JSON.parse(stdout);
  } catch {
    throw new Error(`${label} did not print JSON: ${stdout.slice(0, 500)}`);
  }
}

/** @param {BenchPaths} p */
export async function floorStep(p) {
  const m = await measureNode([join(p.root, 'bench', 'csv-parse-floor.mjs'), p.source], { label: 'csv-parse floor' });
  return { rows: parseJson(m.stdout, 'csv-parse floor').rows, wallMs: m.wallMs, peakRssBytes: m.peakRssBytes };
}

/** @param {BenchPaths} p @param {number} events */
export async function exportStep(p, events) {
  removeStaging(p.staged);
  const m = await measureNode([p.cli, 'export-source', '--from', 'csv', p.source, '--staging', p.staged, '--quiet', '--json'], { label: 'migrate export-source' });
  const totals = parseJson(m.stdout, 'migrate export-source').totals;
  if (totals.staged !== events) throw new Error(`export-source staged ${totals.staged} of ${events} rows (${totals.rejected} rejected)`);
  return { rows: totals.rowsRead, wallMs: m.wallMs, peakRssBytes: m.peakRssBytes, stagingBytes: stagingBytes(p.staged), csvBytes: statSync(p.source).size };
}

/** @param {BenchPaths} p @param {number} events */
export async function importStep(p, events) {
  if (!existsSync(p.staged)) throw new Error(`${p.staged} is missing: run the export step too (or an earlier run with --keep)`);
  if (existsSync(`${p.staged}-wal`)) throw new Error(`${p.staged}-wal exists: is another process using the staging file?`);
  removeStaging(p.imported);
  copyFileSync(p.staged, p.imported);
  const sandbox = await startSandbox(p.cli);
  try {
    const project = { role: 'test', host: sandbox.url, apiKey: sandbox.testProject.apiKey, projectId: String(sandbox.testProject.id) };
    writeFileSync(p.config, JSON.stringify({ projects: { test: project } }, null, 2));
    const args = [p.cli, 'import', '--project', 'test', '--staging', p.imported, '--config', p.config, '--max-rate', '0', '--quiet', '--json'];
    const m = await measureNode(args, { label: 'migrate import' });
    const summary = parseJson(m.stdout, 'migrate import');
    const stats = await sandbox.stats();
    return {
      events: summary.delivered,
      staged: events,
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

/** @param {BenchPaths} p @param {number} peerEvents */
export async function peerStep(p, peerEvents) {
  const sandbox = await startSandbox(p.cli);
  try {
    const args = [join(p.root, 'bench', 'peer-posthog-node.mjs'), p.source, String(peerEvents), sandbox.url, sandbox.testProject.apiKey];
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
