// Pure: turns measured figures into the table (targets, ratios, met?) and the BENCHMARKS.md
// section. No I/O, so it can be tested without running anything.

/** The targets. Sizes in bytes (MB = 10^6 bytes), times in ms. */
export const TARGETS = {
  exportRowsPerSec: 150_000,
  /** export-source within 2x of the bare csv-parse pass. */
  exportVsFloor: 0.5,
  importEventsPerSec: 150_000,
  importVsPeer: 10,
  peakRssBytes: 300e6,
  stagingVsCsv: 1.5,
  statusMs: 1_000,
  /** The event count the RSS and status targets are set at. */
  atEvents: 5_000_000,
};

export const FILE_HEADER = `# Benchmarks

Written by \`npm run bench\` (bench/run-bench.mjs; \`npm run bench -- --help\` for options): each run
adds a section at the top, newest first, and earlier sections stay below it. A run generates a
synthetic CSV source (bench/generate-source.mjs, fixed seed) and measures, each in its own
process: a bare csv-parse pass over the file (the floor), \`migrate export-source\`,
\`migrate import --max-rate 0\` into \`migrate sandbox --count-only\` (in another process),
posthog-node with \`historicalMigration: true\` into the same kind of sandbox (the peer), and
\`migrate status\`. Rates are events over the process's wall time (Node's start included); peak
RSS is the process's own (the sandbox's is not counted). Absolute figures vary between runs on
shared machines; the ratios (ours / floor, ours / peer) are the headline figures. MB = 10^6 bytes.
`;

const AT = `at ${TARGETS.atEvents / 1e6}M events`;

/** @param {number} n */
export const count = (n) => Math.round(n).toLocaleString('en-US');
/** @param {number} ms */
export const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;
/** @param {number} bytes */
export const megabytes = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
/** @param {number} x */
export const times = (x) => `${x.toFixed(2)}×`;

/**
 * @param {number} n
 * @param {number} ms
 */
export function perSecond(n, ms) {
  return ms > 0 ? (n * 1000) / ms : 0;
}

/**
 * @typedef {{ wallMs: number, peakRssBytes: number | null }} Measured
 * @typedef {object} StepResults
 * @property {Measured & { rows: number }} [floor]
 * @property {Measured & { rows: number, stagingBytes: number, csvBytes: number }} [export]
 * @property {Measured & { events: number, staged: number, counted: number, wireBytes: number, requests: number }} [import]
 *   events is what the import delivered, staged what export-source staged.
 * @property {Measured & { events: number, counted: number, bytesSent: number, requests: number }} [peer]
 * @property {Measured & { stagedEvents: number, afterImport: boolean }} [status]
 * @typedef {{ step: string, what: string, figure: string, ratio: string, target: string, met: string }} Row
 * @typedef {{ exportVsFloor: number | null, importVsPeer: number | null }} Headlines
 */

/**
 * @param {boolean | null} pass null when the figure is unknown
 * @param {boolean} belowTargetSize the target is set at a larger event count than measured
 */
function met(pass, belowTargetSize = false) {
  if (pass === null) return '?';
  return pass ? (belowTargetSize ? 'yes*' : 'yes') : 'no';
}

/**
 * @param {string} step
 * @param {number | null} rssBytes
 * @param {boolean} belowTargetSize
 * @returns {Row}
 */
function rssRow(step, rssBytes, belowTargetSize) {
  const target = `< ${TARGETS.peakRssBytes / 1e6} MB ${AT}`;
  return { step, what: 'peak RSS', figure: rssBytes === null ? 'unknown' : megabytes(rssBytes), ratio: '', target, met: met(rssBytes === null ? null : rssBytes < TARGETS.peakRssBytes, belowTargetSize) };
}

/** @param {StepResults} r @returns {Headlines} */
export function headlines(r) {
  const rate = (/** @type {{ wallMs: number }} */ s, /** @type {number} */ n) => perSecond(n, s.wallMs);
  const exportVsFloor = r.export && r.floor ? rate(r.export, r.export.rows) / rate(r.floor, r.floor.rows) : null;
  const importVsPeer = r.import && r.peer ? rate(r.import, r.import.events) / rate(r.peer, r.peer.events) : null;
  return { exportVsFloor, importVsPeer };
}

/**
 * @param {StepResults} r
 * @param {number} events events in the source
 * @returns {Row[]}
 */
export function evaluate(r, events) {
  const small = events < TARGETS.atEvents;
  const h = headlines(r);
  /** @type {Row[]} */
  const rows = [];
  if (r.floor) {
    rows.push({ step: '1 csv-parse floor', what: 'rows/s', figure: `${count(perSecond(r.floor.rows, r.floor.wallMs))} (${seconds(r.floor.wallMs)})`, ratio: '', target: '', met: '' });
  }
  if (r.export) rows.push(...exportRows(r.export, h, small));
  if (r.import) rows.push(...importRows(r.import, h, small));
  if (r.peer) rows.push(...peerRows(r.peer, events));
  if (r.status) {
    const what = `latency (${count(r.status.stagedEvents)} staged${r.status.afterImport ? ', after import' : ''})`;
    rows.push({ step: '5 status', what, figure: seconds(r.status.wallMs), ratio: '', target: `< ${TARGETS.statusMs / 1000} s ${AT}`, met: met(r.status.wallMs < TARGETS.statusMs, small) });
  }
  return rows;
}

/**
 * A speed row against its floor, and a ratio row against the other side (null: not run).
 * @param {{ step: string, unit: string, n: number, wallMs: number, minRate: number, ratio: number | null, minRatio: number, other: string }} s
 * @returns {Row[]}
 */
function speedRows(s) {
  const rate = perSecond(s.n, s.wallMs);
  const target = `>= ${s.minRatio}× ${s.other}`;
  return [
    { step: s.step, what: s.unit, figure: `${count(rate)} (${seconds(s.wallMs)})`, ratio: '', target: `>= ${count(s.minRate)}`, met: met(rate >= s.minRate) },
    s.ratio === null
      ? { step: s.step, what: `vs ${s.other}`, figure: '', ratio: `n/a (${s.other} not run)`, target, met: '?' }
      : { step: s.step, what: `vs ${s.other}`, figure: '', ratio: `${times(s.ratio)} ${s.other}`, target, met: met(s.ratio >= s.minRatio) },
  ];
}

/**
 * @param {NonNullable<StepResults['export']>} e
 * @param {Headlines} h
 * @param {boolean} small
 * @returns {Row[]}
 */
function exportRows(e, h, small) {
  const step = '2 export-source';
  const sizeRatio = e.csvBytes > 0 ? e.stagingBytes / e.csvBytes : 0;
  return [
    ...speedRows({ step, unit: 'rows/s', n: e.rows, wallMs: e.wallMs, minRate: TARGETS.exportRowsPerSec, ratio: h.exportVsFloor, minRatio: TARGETS.exportVsFloor, other: 'floor' }),
    rssRow(step, e.peakRssBytes, small),
    { step, what: 'staging file', figure: `${megabytes(e.stagingBytes)} (CSV ${megabytes(e.csvBytes)})`, ratio: `${times(sizeRatio)} CSV`, target: `<= ${TARGETS.stagingVsCsv}× CSV`, met: met(sizeRatio <= TARGETS.stagingVsCsv) },
  ];
}

/**
 * @param {NonNullable<StepResults['import']>} i
 * @param {Headlines} h
 * @param {boolean} small
 * @returns {Row[]}
 */
function importRows(i, h, small) {
  const step = '3 import';
  return [
    ...speedRows({ step, unit: 'events/s', n: i.events, wallMs: i.wallMs, minRate: TARGETS.importEventsPerSec, ratio: h.importVsPeer, minRatio: TARGETS.importVsPeer, other: 'peer' }),
    rssRow(step, i.peakRssBytes, small),
    { step, what: 'bytes sent', figure: `${megabytes(i.wireBytes)} in ${count(i.requests)} requests`, ratio: '', target: '', met: '' },
    { step, what: 'counted by sandbox', figure: `${count(i.counted)} of ${count(i.staged)}`, ratio: '', target: 'all', met: met(i.counted === i.staged && i.events === i.staged) },
  ];
}

/**
 * @param {NonNullable<StepResults['peer']>} p
 * @param {number} events events in the source
 * @returns {Row[]}
 */
function peerRows(p, events) {
  const prefix = p.events < events ? `, first ${count(p.events)} events` : '';
  return [
    { step: '4 posthog-node', what: 'events/s', figure: `${count(perSecond(p.events, p.wallMs))} (${seconds(p.wallMs)}${prefix})`, ratio: '', target: '', met: '' },
    { step: '4 posthog-node', what: 'peak RSS', figure: p.peakRssBytes === null ? 'unknown' : megabytes(p.peakRssBytes), ratio: '', target: '', met: '' },
    { step: '4 posthog-node', what: 'bytes sent', figure: `${megabytes(p.bytesSent)} in ${count(p.requests)} requests`, ratio: '', target: '', met: '' },
    { step: '4 posthog-node', what: 'counted by sandbox', figure: `${count(p.counted)} of ${count(p.events)}`, ratio: '', target: 'all', met: met(p.counted === p.events) },
  ];
}

const COLUMNS = /** @type {const} */ (['step', 'what', 'figure', 'ratio', 'target', 'met']);
const TITLES = ['step', 'what', 'figure', 'ratio', 'target', 'met?'];

/** @param {readonly Row[]} rows aligned plain text for the terminal */
export function formatTable(rows) {
  const cells = [TITLES, ...rows.map((row) => COLUMNS.map((c) => row[c]))];
  const widths = TITLES.map((_, i) => Math.max(...cells.map((line) => (line[i] ?? '').length)));
  const line = (/** @type {string[]} */ values) => values.map((v, i) => v.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  return [line(TITLES), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

/** @param {readonly Row[]} rows a Markdown table */
export function markdownTable(rows) {
  const escape = (/** @type {string} */ v) => v.replaceAll('|', '\\|');
  const line = (/** @type {string[]} */ values) => `| ${values.map(escape).join(' | ')} |`;
  return [line(TITLES), line(TITLES.map(() => '---')), ...rows.map((row) => line(COLUMNS.map((c) => row[c])))].join('\n');
}

/** @param {Headlines} h one line: the two headline ratios against their targets */
export function headlineText(h) {
  const part = (/** @type {string} */ label, /** @type {number | null} */ value, /** @type {number} */ target) =>
    `${label} ${value === null ? 'n/a' : times(value)} (target >= ${target}×)`;
  return `${part('export-source / csv-parse floor', h.exportVsFloor, TARGETS.exportVsFloor)}; ${part('import / posthog-node', h.importVsPeer, TARGETS.importVsPeer)}`;
}

/**
 * Footnotes the rows need.
 * @param {readonly Row[]} rows
 */
export function footnotes(rows) {
  return rows.some((r) => r.met.endsWith('*'))
    ? [`* measured below ${count(TARGETS.atEvents)} events; the target is set at ${count(TARGETS.atEvents)}, so this is an indication only.`]
    : [];
}

/**
 * @typedef {object} RunInfo
 * @property {string} date ISO 8601
 * @property {number} events
 * @property {string} command the exact command
 * @property {string} machine one line
 * @property {string} commit
 * @property {readonly Row[]} rows
 * @property {Headlines} headlines
 * @property {readonly string[]} notes
 */

/** @param {RunInfo} run the Markdown section for one run */
export function runSection(run) {
  return [
    `## ${run.date.slice(0, 16).replace('T', ' ')} UTC, ${count(run.events)} events`,
    '',
    `- Command: \`${run.command}\``,
    `- Machine: ${run.machine}`,
    `- Commit: ${run.commit}`,
    `- Headline: ${headlineText(run.headlines)}`,
    '',
    markdownTable(run.rows),
    ...(run.notes.length > 0 ? ['', ...run.notes] : []),
    '',
  ].join('\n');
}

/**
 * The file with `section` on top of the earlier runs. The header (everything before the first
 * `## ` heading) is kept as it is, or written when the file is new.
 * @param {string | null} existing the file's text, or null when it does not exist
 * @param {string} section
 */
export function insertSection(existing, section) {
  if (existing === null || existing.trim() === '') return `${FILE_HEADER}\n${section}`;
  const at = existing.search(/^## /m);
  if (at < 0) return `${existing.trimEnd()}\n\n${section}`;
  return `${existing.slice(0, at)}${section.trimEnd()}\n\n${existing.slice(at)}`;
}

/**
 * A command line as the user would retype it.
 * @param {readonly string[]} words
 */
export function shellQuote(words) {
  return words.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replaceAll("'", "'\\''")}'`)).join(' ');
}
