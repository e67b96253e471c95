#!/usr/bin/env node
// `npm run bench`: generates (or reuses) a source of each format in .bench/, measures each step
// in its own process, prints the table and adds the run's section to BENCHMARKS.md. Options: --help.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseBenchArgs, USAGE } from './lib/bench-args.mjs';
import { count, evaluate, footnotes, formatTable, headlines, headlineText, insertSection, megabytes, runSection, shellQuote } from './lib/bench-report.mjs';
import { exportStep, floorStep, formatFiles, importStep, peerStep, readMeta, removeStaging, rerunStep, statusStep } from './lib/bench-steps.mjs';
import { bucketStep } from './lib/bucket-step.mjs';
import { paceLines, paceStep } from './lib/pace-step.mjs';
import { rssMethod } from './lib/measure-process.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
const parsed = parseBenchArgs(argv);
if ('help' in parsed) {
  console.log(USAGE);
  process.exit(0);
}
if ('error' in parsed) {
  console.error(`bench: ${parsed.error}\n${USAGE}`);
  process.exit(2);
}
const options = parsed.options;
const work = join(root, '.bench');
/** @type {import('./lib/bench-steps.mjs').BenchPaths} */
const paths = { root, cli: join(root, 'bin', 'migrate.js'), work, config: join(work, 'migrate.config.json') };
const show = (/** @type {string} */ file) => relative(process.cwd(), file) || file;
const on = (/** @type {string} */ s) => options.steps.includes(s);
/** The two CSVs import and the peer run on: flat properties, and nested ones. */
const IMPORTED = /** @type {const} */ ([
  ['flat', 'csv'],
  ['nested', 'csv-nested'],
]);

/**
 * Generates a format's source unless one of this size is there with its counts; the rename
 * makes a partial file impossible.
 * @param {import('./lib/bench-steps.mjs').FormatFiles} f
 * @param {number} [events] the source's size, when not the run's (the baseline's)
 */
async function prepareSource(f, events = options.events) {
  if (existsSync(f.source) && existsSync(f.meta)) {
    console.log(`Reusing ${show(f.source)} (${megabytes(statSync(f.source).size)}), generated earlier with the same size and seed.`);
    return 'reused';
  }
  const partial = `${f.source}.partial`;
  if (await generatedElsewhere(f, partial)) return 'reused';
  console.log(`Generating ${show(f.source)} (${count(events)} events, ${f.format})...`);
  const child = spawn(process.execPath, [join(root, 'bench', 'generate-source.mjs'), '--format', f.format, partial, String(events)], { stdio: 'inherit' });
  const code = await new Promise((done, fail) => child.once('error', fail).once('close', done));
  if (code !== 0) throw new Error(`bench/generate-source.mjs exited with ${code}`);
  renameSync(`${partial}.meta.json`, f.meta);
  renameSync(partial, f.source);
  return 'generated';
}

/**
 * A partial source still growing is being written by a generator started by hand (a 20M source
 * takes most of an hour): wait for it to finish rather than write the same file twice.
 * @param {import('./lib/bench-steps.mjs').FormatFiles} f @param {string} partial
 */
async function generatedElsewhere(f, partial) {
  const growing = () => existsSync(partial) && Date.now() - statSync(partial).mtimeMs < 60_000;
  if (!growing()) return false;
  console.log(`Waiting for ${show(partial)}, which another generator is writing...`);
  while (growing()) await new Promise((resolve) => setTimeout(resolve, 10_000));
  if (!(existsSync(f.meta) && existsSync(f.source) && statSync(f.source).size > 0)) throw new Error(`${show(partial)} stopped growing without becoming ${show(f.source)}`);
  return true;
}

function machine() {
  const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
  return `${os.availableParallelism()} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB memory, ${cpu}, ${os.type()} ${os.release()}, Node ${process.version}`;
}

function commit() {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' });
  if (head.status !== 0) return 'unknown (not a git checkout)';
  // The output file itself does not make the code "changed" (one run's section before another's).
  const exclude = options.out === null ? [] : [`:!${relative(root, resolve(options.out))}`];
  const status = spawnSync('git', ['status', '--porcelain', '--untracked-files=no', '--', '.', ...exclude], { cwd: root, encoding: 'utf8' });
  const dirty = status.stdout.trim() !== '';
  return `${head.stdout.trim()}${dirty ? ' with uncommitted changes' : ''}`;
}

/** The command as the user typed it: through npm when npm ran us. */
function command() {
  if (process.env.npm_lifecycle_event === 'bench') return `npm run bench${argv.length > 0 ? ` -- ${shellQuote(argv)}` : ''}`;
  return shellQuote(['node', 'bench/run-bench.mjs', ...argv]);
}

function peerVersion() {
  try {
    return JSON.parse(readFileSync(join(root, 'node_modules', 'posthog-node', 'package.json'), 'utf8')).version;
  } catch {
    return 'unknown';
  }
}

/**
 * @param {string} what
 * @param {() => Promise<T>} run
 * @template T
 */
async function step(what, run) {
  process.stdout.write(`${what}... `);
  const result = await run().catch((error) => {
    console.log('failed');
    throw error;
  });
  // The figures as each step ends: a long run stopped before its table still leaves them in its log.
  const r = /** @type {{ wallMs: number, rows?: number, peakRssBytes?: number | null, cpuMs?: number | null, stagingBytes?: number }} */ (result);
  const extra = [
    r.rows === undefined ? '' : `, ${count((r.rows * 1000) / r.wallMs)} rows/s`,
    r.peakRssBytes == null ? '' : `, peak RSS ${megabytes(r.peakRssBytes)}`,
    r.cpuMs == null ? '' : `, CPU ${(r.cpuMs / 1000).toFixed(2)} s`,
    r.stagingBytes === undefined ? '' : `, staging ${megabytes(r.stagingBytes)}`,
  ].join('');
  console.log(`${(r.wallMs / 1000).toFixed(2)} s${extra}`);
  return result;
}

/**
 * The bucket step uploads the source in one PUT of the bytes in memory (moto decodes streamed
 * uploads very slowly) and moto keeps them in memory too: Node reads at most 2 GiB into one
 * buffer, so a larger source (the 20M run's) is not uploaded and the step is left out.
 */
const BUCKET_MAX_BYTES = 2 ** 31 - 1;
let bucketSkipped = false;

/** Staging files kept for the import and status steps: the two CSVs', when those steps run. */
function keptForImport(/** @type {string} */ format) {
  return (on('import') || on('status')) && IMPORTED.some(([, f]) => f === format);
}

/** Each format's floor and export, one format after another. @param {Record<string, string>} sources */
async function runFormats(sources) {
  /** @type {import('./lib/bench-report.mjs').FormatResults[]} */
  const formats = [];
  // The pace step alone needs none of the formats' sources.
  if (!options.steps.some((s) => s !== 'pace')) return formats;
  for (const format of options.formats) {
    const f = formatFiles(work, format, options.events);
    sources[format] = await prepareSource(f);
    /** @type {import('./lib/bench-report.mjs').FormatResults} */
    const r = { format };
    if (on('export') && options.baselineEvents !== null) r.baseline = await baselineStep(format, options.baselineEvents);
    if (on('floor')) r.floor = await step(`${format}: floor (a bare pass over the file)`, () => floorStep(paths, f));
    if (on('export')) r.export = await step(`${format}: migrate export-source`, () => exportStep(paths, f));
    if (on('bucket') && format === 'mixpanel') {
      if (statSync(f.source).size <= BUCKET_MAX_BYTES) r.bucket = await step(`${format}: migrate export-source s3:// (the same file in moto's S3 server on loopback)`, () => bucketStep(paths, f));
      else bucketSkipped = true;
    }
    if (on('rerun') && r.export && format === 'csv') r.rerun = await step(`${format}: migrate export-source again, the file unchanged`, () => rerunStep(paths, f));
    if (r.export && !options.keep && !keptForImport(format)) removeStaging(f.staged);
    formats.push(r);
  }
  return formats;
}

/**
 * The same format staged from the smaller source just before the large one, so the two rates
 * are taken under the same conditions.
 * @param {string} format @param {number} events
 */
async function baselineStep(format, events) {
  const f = formatFiles(work, format, events);
  await prepareSource(f, events);
  try {
    return await step(`${format}: migrate export-source, baseline of ${count(events)} events`, () => exportStep(paths, f));
  } finally {
    removeStaging(f.staged);
  }
}

/** Import and the peer on the flat and the nested CSV; status on the flat one. @param {import('./lib/bench-report.mjs').FormatResults[]} formats */
async function runImports(formats) {
  /** @type {Array<import('./lib/bench-report.mjs').ImportResults & { import?: { cliEventsPerSec: number } }>} */
  const imports = [];
  for (const [kind, format] of IMPORTED) {
    if (!options.formats.includes(format) || !(on('import') || on('peer'))) continue;
    const f = formatFiles(work, format, options.events);
    const staged = formats.find((r) => r.format === format)?.export?.got.staged ?? readMeta(f).expect.staged;
    /** @type {(typeof imports)[number]} */
    const r = { kind };
    if (on('import')) r.import = await step(`${format}: migrate import --max-rate 0 into the count-only sandbox`, () => importStep(paths, f, staged));
    if (on('peer'))
      r.peer = await step(`${format}: posthog-node ${peerVersion()} (historicalMigration) into the count-only sandbox, ${count(options.peerEvents)} rows`, () =>
        peerStep(paths, f, options.peerEvents),
      );
    imports.push(r);
  }
  /** @type {import('./lib/bench-report.mjs').StepResults['status']} */
  let status;
  if (on('status') && options.formats.includes('csv')) {
    const f = formatFiles(work, 'csv', options.events);
    const afterImport = imports.some((i) => i.kind === 'flat' && i.import);
    const staging = afterImport ? f.imported : f.staged;
    const result = await step(`csv: migrate status on ${show(staging)}`, () => statusStep(staging, paths));
    status = { ...result, stagedEvents: readMeta(f).expect.staged, afterImport };
  }
  return { imports, status };
}

/**
 * @param {import('./lib/bench-report.mjs').StepResults & { imports: Array<{ kind: string, import?: { cliEventsPerSec: number } }> }} r
 * @param {Record<string, string>} sources
 */
function notes(r, sources) {
  const lines = options.formats
    .filter((format) => sources[format] !== undefined)
    .map((format) => {
      const f = formatFiles(work, format, options.events);
      const meta = readMeta(f);
      const files = meta.files > 1 ? ` (${count(meta.files)} gzipped files)` : '';
      return `Source ${format}: ${show(f.source)}${files}, ${megabytes(statSync(f.source).size)}, ${sources[format]} for this run.`;
    });
  if (options.baselineEvents !== null && on('export')) {
    for (const format of options.formats) {
      const b = formatFiles(work, format, options.baselineEvents);
      lines.push(`Baseline ${format}: ${show(b.source)}, ${megabytes(statSync(b.source).size)}, staged just before the ${count(options.events)}-event source.`);
    }
  }
  if (bucketSkipped) lines.push(`Bucket step left out: the Mixpanel source is over ${megabytes(BUCKET_MAX_BYTES)}, more than one PUT from memory can upload to moto.`);
  lines.push(
    `Peak RSS: ${{ time: "GNU time %M (the kernel's maximum resident set of the process)", proc: 'polling /proc/<pid>/status VmHWM every 20 ms', none: 'not measurable on this system' }[rssMethod()]}.`,
  );
  for (const i of r.imports) {
    if (i.import)
      lines.push(
        `import (${i.kind}): the CLI's own summary gives ${count(i.import.cliEventsPerSec)} events/s over its delivery alone (Node start-up and opening the staging file excluded); the table uses the process's wall time.`,
      );
  }
  if (r.imports.some((i) => 'peer' in i && i.peer)) {
    lines.push(
      `posthog-node: ${peerVersion()}, its default batching (flushAt 20, maxBatchSize 100), gzip on, one batch in flight (its design); the step includes reading its CSV prefix with csv-parse, and leaves out rows migrate rejects (no name or distinct_id, a bad time, properties that are not JSON).`,
    );
  }
  return lines;
}

async function main() {
  mkdirSync(work, { recursive: true });
  const baseline = options.baselineEvents === null ? '' : `, each export beside a baseline of ${count(options.baselineEvents)} events`;
  console.log(`Benchmark: ${count(options.events)} events, formats ${options.formats.join(', ')}, steps ${options.steps.join(', ')}${baseline}; work dir ${show(work)}.`);
  /** @type {Record<string, string>} */
  const sources = {};
  /** @type {string[]} */
  let paceNotes = [];
  let r;
  try {
    const formats = await runFormats(sources);
    r = { formats, ...(await runImports(formats)) };
    if (on('pace')) paceNotes = paceLines(await step('pace: migrate import against the sandbox --rate-limit (steady, step change, no limit)', () => paceStep(paths)));
  } finally {
    if (!options.keep) {
      for (const format of options.formats) {
        const f = formatFiles(work, format, options.events);
        if (on('export')) removeStaging(f.staged);
        if (on('import')) removeStaging(f.imported);
      }
    }
    rmSync(paths.config, { force: true });
  }
  const rows = evaluate(r, options.events);
  const h = headlines(r);
  const extra = [...footnotes(rows), ...notes(r, sources), ...paceNotes];
  console.log(`\n${formatTable(rows)}\n\nHeadline: ${headlineText(h)}\n${extra.join('\n')}`);
  if (options.keep) console.log(`Staging files kept in ${show(work)}.`);
  if (rows.some((row) => (row.what === 'counted by sandbox' || row.what === 'counts') && row.met === 'no')) {
    console.error('bench: a step did not stage or deliver what the source holds (see the rows marked no); its rates are not valid.');
    process.exitCode = 1;
  }
  if (options.out === null) return;
  const out = resolve(options.out);
  const section = runSection({ date: new Date().toISOString(), events: options.events, command: command(), machine: machine(), commit: commit(), rows, headlines: h, notes: extra });
  writeFileSync(out, insertSection(existsSync(out) ? readFileSync(out, 'utf8') : null, section));
  console.log(`Wrote this run's section to ${show(out)}.`);
}

main().catch((error) => {
  console.error(`bench: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
