// Pure: turns measured figures into the table (targets, ratios, met?) and the BENCHMARKS.md
// section. No I/O, so it can be tested without running anything.

/** The issues' targets. Sizes in bytes (MB = 10^6 bytes), times in ms. */
export const TARGETS = {
  exportRowsPerSec: 150_000,
  /** export-source within 2x of the bare pass over the same file (the flat CSV, and every JSON format). */
  exportVsFloor: 0.5,
  /** A CSV whose properties column holds nested JSON (and quoted line ends): within 1.67x of csv-parse. */
  nestedCsvVsFloor: 0.6,
  /** A PostHog batch export in Parquet: within 2x of a bare hyparquet pass (issue 30). */
  parquetVsFloor: 0.5,
  /** The same rows in an Avro file: within 2x of a bare avsc pass (issue 30). */
  avroVsFloor: 0.5,
  importEventsPerSec: 150_000,
  importVsPeer: 10,
  peakRssBytes: 300e6,
  /** The staging file against its source: no larger than a CSV, at most 0.6x the JSON of every JSON source (JSON lines, Mixpanel, Amplitude, PostHog). */
  stagingVsCsv: 1,
  stagingVsJson: 0.6,
  statusMs: 1_000,
  /** The Mixpanel file staged from an S3 server on loopback, against the same file on local disk. */
  bucketVsLocal: 0.8,
  /** A second export-source over the same unchanged file, against the first (it is not read again). */
  rerunVsFirst: 0.05,
  /** Rows/s of a large run against the same format's one-million run (issue 33: a cost in a straight line). */
  straightLine: 0.85,
  /** The event count the RSS and status targets are set at. */
  atEvents: 5_000_000,
};

/** The floor each format is measured against, and the least ratio to it. */
export const FLOORS = {
  csv: { floor: 'csv-parse floor', min: TARGETS.exportVsFloor },
  'csv-nested': { floor: 'csv-parse floor', min: TARGETS.nestedCsvVsFloor },
  jsonl: { floor: 'JSON.parse floor', min: TARGETS.exportVsFloor },
  mixpanel: { floor: 'JSON.parse floor', min: TARGETS.exportVsFloor },
  amplitude: { floor: 'JSON.parse floor', min: TARGETS.exportVsFloor },
  posthog: { floor: 'JSON.parse floor', min: TARGETS.exportVsFloor },
  'posthog-parquet': { floor: 'hyparquet floor', min: TARGETS.parquetVsFloor },
  avro: { floor: 'avsc floor', min: TARGETS.avroVsFloor },
};

export const FILE_HEADER = `# Benchmarks

Written by \`npm run bench\` (bench/run-bench.mjs; \`npm run bench -- --help\` for options): each run
adds a section at the top, newest first, and earlier sections stay below it. A run generates a
source of each format (bench/generate-source.mjs, fixed seeds: a flat CSV, a CSV with nested JSON
properties, plain JSON lines, Mixpanel's raw export, Amplitude's zip of gzipped files, PostHog's
export) and measures, each in its own process: a bare pass over each file (the floor: csv-parse,
or readline and JSON.parse, gunzipping what needs it), \`migrate export-source\` on it,
\`migrate import --max-rate 0\` of the two CSVs' staging files into \`migrate sandbox --count-only\`
(in another process), posthog-node with \`historicalMigration: true\` into the same kind of sandbox
(the peer), and \`migrate status\`. Rates are rows (events) over the process's wall time (Node's
start included); peak RSS is the process's own (the sandbox's is not counted). Absolute figures
vary between runs on shared machines; the ratios (ours / floor, ours / peer) are the headline
figures, and the headline export ratio is the worst over the formats. MB = 10^6 bytes.
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
 * @typedef {{ staged: number, rejected: number, skipped: number, duplicates: number }} Counts
 * @typedef {object} FormatResults
 * @property {string} format
 * @property {Measured & { rows: number }} [floor]
 * @property {Measured & { rows: number, cpuMs?: number | null, stagingBytes: number, sourceBytes: number, sourceTextBytes?: number, expected: Counts, got: Counts }} [export]
 * @property {Measured & { rows: number, cpuMs?: number | null, stagingBytes: number, sourceBytes: number, sourceTextBytes?: number, expected: Counts, got: Counts }} [baseline]
 *   the same format staged from a smaller source (the one-million run), just before the large one
 * @property {Measured & { rows: number, staged: number, sourceBytes: number }} [bucket] the same file staged from moto (mixpanel)
 * @property {Measured & { unchanged: number }} [rerun] export-source again over the same unchanged file (csv)
 * @typedef {object} ImportResults
 * @property {'flat' | 'nested'} kind the flat CSV's events, or the nested CSV's
 * @property {Measured & { events: number, staged: number, counted: number, wireBytes: number, requests: number }} [import]
 *   events is what the import delivered, staged what export-source staged.
 * @property {Measured & { events: number, counted: number, bytesSent: number, requests: number }} [peer]
 * @typedef {object} StepResults
 * @property {FormatResults[]} formats
 * @property {ImportResults[]} imports
 * @property {Measured & { stagedEvents: number, afterImport: boolean }} [status]
 * @typedef {{ step: string, what: string, figure: string, ratio: string, target: string, met: string }} Row
 * @typedef {{ format: string, ratio: number, min: number }} ExportRatio
 * @typedef {{ kind: string, ratio: number }} ImportRatio
 * @typedef {{ format: string, ratio: number }} LineRatio
 * @typedef {{ exports: ExportRatio[], worstExport: ExportRatio | null, imports: ImportRatio[], lines?: LineRatio[] }} Headlines
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
  // The memory target holds at every size (a billion-event run in the memory of a million-event one), so a small run is judged too.
  void belowTargetSize;
  return {
    step,
    what: 'peak RSS',
    figure: rssBytes === null ? 'unknown' : megabytes(rssBytes),
    ratio: '',
    target: `< ${TARGETS.peakRssBytes / 1e6} MB`,
    met: met(rssBytes === null ? null : rssBytes < TARGETS.peakRssBytes),
  };
}

/** @param {{ wallMs: number }} s @param {number} n */
const rate = (s, n) => perSecond(n, s.wallMs);

/** @param {StepResults} r @returns {Headlines} */
export function headlines(r) {
  /** @type {ExportRatio[]} */
  const exports = [];
  for (const f of r.formats) {
    if (!f.export || !f.floor) continue;
    const min = FLOORS[/** @type {keyof typeof FLOORS} */ (f.format)]?.min ?? TARGETS.exportVsFloor;
    exports.push({ format: f.format, ratio: rate(f.export, f.export.rows) / rate(f.floor, f.floor.rows), min });
  }
  const worstExport = exports.reduce((/** @type {ExportRatio | null} */ worst, e) => (worst === null || e.ratio < worst.ratio ? e : worst), null);
  /** @type {ImportRatio[]} */
  const imports = [];
  for (const i of r.imports) if (i.import && i.peer) imports.push({ kind: i.kind, ratio: rate(i.import, i.import.events) / rate(i.peer, i.peer.events) });
  /** @type {LineRatio[]} */
  const lines = [];
  for (const f of r.formats) if (f.export && f.baseline) lines.push({ format: f.format, ratio: rate(f.export, f.export.rows) / rate(f.baseline, f.baseline.rows) });
  return lines.length > 0 ? { exports, worstExport, imports, lines } : { exports, worstExport, imports };
}

/** @param {Counts} c */
const countsText = (c) => `${count(c.staged)} staged, ${count(c.rejected)} rejected, ${count(c.skipped)} skipped, ${count(c.duplicates)} identical`;

/**
 * @param {FormatResults} f
 * @param {boolean} small
 * @returns {Row[]}
 */
/**
 * The bucket step against the local export of the same file, in rows/s.
 * @param {NonNullable<FormatResults['bucket']>} b @param {NonNullable<FormatResults['export']>} e
 * @returns {Row}
 */
function bucketRow(b, e) {
  const ratio = rate(b, b.rows) / rate(e, e.rows);
  const same = b.staged === e.got.staged;
  return {
    step: 'mixpanel: export-source s3://',
    what: `rows/s from moto${same ? '' : ` (staged ${count(b.staged)}, not ${count(e.got.staged)})`}`,
    figure: `${count(rate(b, b.rows))} (${seconds(b.wallMs)})`,
    ratio: `${times(ratio)} local disk`,
    target: `>= ${TARGETS.bucketVsLocal}× local disk`,
    met: met(same && ratio >= TARGETS.bucketVsLocal),
  };
}

/**
 * The rerun step against the first export of the same file: an unchanged file is not read again.
 * @param {NonNullable<FormatResults['rerun']>} r @param {NonNullable<FormatResults['export']>} e
 * @returns {Row}
 */
function rerunRow(r, e) {
  const ratio = r.wallMs / e.wallMs;
  return {
    step: 'csv: export-source again',
    what: `the file unchanged${r.unchanged === 1 ? '' : ` (${count(r.unchanged)} sources left unread, not 1)`}`,
    figure: seconds(r.wallMs),
    ratio: `${times(ratio)} first run`,
    target: `<= ${TARGETS.rerunVsFirst}× first run`,
    met: met(r.unchanged === 1 && ratio <= TARGETS.rerunVsFirst),
  };
}

/** Sources of JSON text, whose staging file is held to TARGETS.stagingVsJson of their JSON. */
const JSON_FORMATS = ['jsonl', 'mixpanel', 'amplitude', 'posthog'];

/** The staging file against the source's bytes, and against the text a zip source holds. */
function stagingRows(step, format, e) {
  const target = format === 'csv' ? TARGETS.stagingVsCsv : JSON_FORMATS.includes(format) ? TARGETS.stagingVsJson : undefined;
  const text = e.sourceTextBytes;
  const sizeRatio = e.sourceBytes > 0 ? e.stagingBytes / e.sourceBytes : 0;
  const judged = text === undefined ? sizeRatio : e.stagingBytes / text;
  const rows = [
    {
      step,
      what: 'staging file',
      figure: `${megabytes(e.stagingBytes)} (source ${megabytes(e.sourceBytes)})`,
      ratio: `${times(sizeRatio)} source`,
      target: target === undefined || text !== undefined ? '' : `<= ${target}× source`,
      met: target === undefined || text !== undefined ? '' : met(sizeRatio <= target),
    },
  ];
  if (text !== undefined) {
    rows.push({
      step,
      what: 'staging file vs the JSON in the zip',
      figure: `${megabytes(e.stagingBytes)} (JSON ${megabytes(text)})`,
      ratio: `${times(judged)} JSON`,
      target: target === undefined ? '' : `<= ${target}× JSON`,
      met: target === undefined ? '' : met(judged <= target),
    });
  }
  return rows;
}

function formatRows(f, small) {
  const { floor: floorName, min } = FLOORS[/** @type {keyof typeof FLOORS} */ (f.format)] ?? { floor: 'floor', min: TARGETS.exportVsFloor };
  /** @type {Row[]} */
  const rows = [];
  if (f.floor) rows.push({ step: `${f.format}: ${floorName}`, what: 'rows/s', figure: `${count(rate(f.floor, f.floor.rows))} (${seconds(f.floor.wallMs)})`, ratio: '', target: '', met: '' });
  const e = f.export;
  if (!e) return rows;
  const step = `${f.format}: export-source`;
  const flat = f.format === 'csv';
  const ratio = f.floor ? rate(e, e.rows) / rate(f.floor, f.floor.rows) : null;
  const exportRate = rate(e, e.rows);
  rows.push({
    step,
    what: 'rows/s',
    figure: `${count(exportRate)} (${seconds(e.wallMs)})`,
    ratio: '',
    target: flat ? `>= ${count(TARGETS.exportRowsPerSec)}` : '',
    met: flat ? met(exportRate >= TARGETS.exportRowsPerSec) : '',
  });
  rows.push({
    step,
    what: 'vs floor',
    figure: '',
    ratio: ratio === null ? 'n/a (floor not run)' : `${times(ratio)} floor`,
    target: `>= ${min}× floor`,
    met: ratio === null ? '?' : met(ratio >= min),
  });
  rows.push(f.baseline ? straightLineRssRow(step, e.peakRssBytes) : rssRow(step, e.peakRssBytes, small));
  rows.push(...stagingRows(step, f.format, e));
  rows.push(...cpuRows(step, e));
  if (f.bucket) rows.push(bucketRow(f.bucket, e));
  if (f.rerun) rows.push(rerunRow(f.rerun, e));
  rows.push(countsRow(step, e));
  if (f.baseline) rows.push(...baselineRows(f.format, f.baseline, e));
  return rows;
}

/**
 * Issue 33 sets the peak under 300 MB at both sizes of a straight-line run, whatever the size.
 * @param {string} step @param {number | null} rssBytes @returns {Row}
 */
const straightLineRssRow = (step, rssBytes) => ({ ...rssRow(step, rssBytes, false), target: `< ${TARGETS.peakRssBytes / 1e6} MB` });

/** @param {number} cpuMs @param {number} rows */
const microsPerRow = (cpuMs, rows) => `${rows > 0 ? ((cpuMs * 1000) / rows).toFixed(1) : '?'} µs`;

/** An export's CPU per row, when its CPU was measured. @param {string} step @param {NonNullable<FormatResults['export']>} e @returns {Row[]} */
const cpuRows = (step, e) => (e.cpuMs == null ? [] : [{ step, what: 'CPU per row', figure: `${microsPerRow(e.cpuMs, e.rows)} (${seconds(e.cpuMs)} user + system)`, ratio: '', target: '', met: '' }]);

/** An export's counts against what the generator expects. @param {string} step @param {NonNullable<FormatResults['export']>} e @returns {Row} */
const countsRow = (step, e) => ({ step, what: 'counts', figure: countsText(e.got), ratio: '', target: 'as generated', met: met(JSON.stringify(e.got) === JSON.stringify(e.expected)) });

/**
 * The same format's smaller run beside the large one: the straight-line target.
 * @param {string} format
 * @param {NonNullable<FormatResults['baseline']>} b
 * @param {NonNullable<FormatResults['export']>} e
 * @returns {Row[]}
 */
function baselineRows(format, b, e) {
  const step = `${format}: export-source, ${count(b.rows)} rows`;
  const ratio = rate(e, e.rows) / rate(b, b.rows);
  /** @type {Row[]} */
  const rows = [
    { step, what: 'rows/s', figure: `${count(rate(b, b.rows))} (${seconds(b.wallMs)})`, ratio: '', target: '', met: '' },
    straightLineRssRow(step, b.peakRssBytes),
    ...stagingRows(step, format, b),
    ...cpuRows(step, b),
    countsRow(step, b),
  ];
  rows.push({
    step: `${format}: straight line`,
    what: `rows/s at ${count(e.rows)} rows vs at ${count(b.rows)}`,
    figure: '',
    ratio: `${times(ratio)}`,
    target: `>= ${TARGETS.straightLine}×`,
    met: met(ratio >= TARGETS.straightLine),
  });
  if (e.cpuMs != null && b.cpuMs != null) {
    const cpuRatio = e.cpuMs / e.rows / (b.cpuMs / b.rows);
    rows.push({
      step: `${format}: straight line`,
      what: 'CPU per row, large run vs small',
      figure: `${microsPerRow(e.cpuMs, e.rows)} vs ${microsPerRow(b.cpuMs, b.rows)}`,
      ratio: times(cpuRatio),
      target: '',
      met: '',
    });
  }
  return rows;
}

/**
 * @param {ImportResults} i
 * @param {Headlines} h
 * @param {boolean} small
 * @param {number} events events in the source
 * @returns {Row[]}
 */
function importRows(i, h, small, events) {
  /** @type {Row[]} */
  const rows = [];
  const label = i.kind === 'flat' ? 'flat properties (csv)' : 'nested properties (csv-nested)';
  const imp = i.import;
  if (imp) {
    const step = `import, ${label}`;
    const importRate = rate(imp, imp.events);
    const ratio = h.imports.find((x) => x.kind === i.kind)?.ratio ?? null;
    rows.push({
      step,
      what: 'events/s',
      figure: `${count(importRate)} (${seconds(imp.wallMs)})`,
      ratio: '',
      target: `>= ${count(TARGETS.importEventsPerSec)}`,
      met: met(importRate >= TARGETS.importEventsPerSec),
    });
    rows.push({
      step,
      what: 'vs peer',
      figure: '',
      ratio: ratio === null ? 'n/a (peer not run)' : `${times(ratio)} peer`,
      target: `>= ${TARGETS.importVsPeer}× peer`,
      met: ratio === null ? '?' : met(ratio >= TARGETS.importVsPeer),
    });
    rows.push(rssRow(step, imp.peakRssBytes, small));
    rows.push({ step, what: 'bytes sent', figure: `${megabytes(imp.wireBytes)} in ${count(imp.requests)} requests`, ratio: '', target: '', met: '' });
    rows.push({
      step,
      what: 'counted by sandbox',
      figure: `${count(imp.counted)} of ${count(imp.staged)}`,
      ratio: '',
      target: 'all',
      met: met(imp.counted === imp.staged && imp.events === imp.staged),
    });
  }
  const p = i.peer;
  if (p) {
    const step = `posthog-node, ${label}`;
    const prefix = p.events < events ? `, first ${count(p.events)} events` : '';
    rows.push({ step, what: 'events/s', figure: `${count(rate(p, p.events))} (${seconds(p.wallMs)}${prefix})`, ratio: '', target: '', met: '' });
    rows.push({ step, what: 'peak RSS', figure: p.peakRssBytes === null ? 'unknown' : megabytes(p.peakRssBytes), ratio: '', target: '', met: '' });
    rows.push({ step, what: 'bytes sent', figure: `${megabytes(p.bytesSent)} in ${count(p.requests)} requests`, ratio: '', target: '', met: '' });
    rows.push({ step, what: 'counted by sandbox', figure: `${count(p.counted)} of ${count(p.events)}`, ratio: '', target: 'all', met: met(p.counted === p.events) });
  }
  return rows;
}

/**
 * @param {StepResults} r
 * @param {number} events events in each source
 * @returns {Row[]}
 */
export function evaluate(r, events) {
  const small = events < TARGETS.atEvents;
  const h = headlines(r);
  const rows = r.formats.flatMap((f) => formatRows(f, small));
  for (const i of r.imports) rows.push(...importRows(i, h, small, events));
  if (r.status) {
    const what = `latency (${count(r.status.stagedEvents)} staged${r.status.afterImport ? ', after import' : ''})`;
    rows.push({ step: 'status', what, figure: seconds(r.status.wallMs), ratio: '', target: `< ${TARGETS.statusMs / 1000} s ${AT}`, met: met(r.status.wallMs < TARGETS.statusMs, small) });
  }
  return rows;
}

const COLUMNS = /** @type {const} */ (['step', 'what', 'figure', 'ratio', 'target', 'met']);
const TITLES = ['step', 'what', 'figure', 'ratio', 'target', 'met?'];

/** @param {readonly Row[]} rows aligned plain text for the terminal */
export function formatTable(rows) {
  const cells = [TITLES, ...rows.map((row) => COLUMNS.map((c) => row[c]))];
  const widths = TITLES.map((_, i) => Math.max(...cells.map((line) => (line[i] ?? '').length)));
  const line = (/** @type {string[]} */ values) =>
    values
      .map((v, i) => v.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(TITLES), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

/** @param {readonly Row[]} rows a Markdown table */
export function markdownTable(rows) {
  const escape = (/** @type {string} */ v) => v.replaceAll('|', '\\|');
  const line = (/** @type {string[]} */ values) => `| ${values.map(escape).join(' | ')} |`;
  return [line(TITLES), line(TITLES.map(() => '---')), ...rows.map((row) => line(COLUMNS.map((c) => row[c])))].join('\n');
}

/** @param {Headlines} h one line: the worst export ratio over the formats, and the import ratios, against their targets */
export function headlineText(h) {
  const w = h.worstExport;
  const met = h.exports.filter((e) => e.ratio >= e.min).length;
  const exportPart =
    w === null
      ? 'export-source / floor n/a'
      : `worst export-source / floor over ${h.exports.length} format${h.exports.length === 1 ? '' : 's'} ${times(w.ratio)} (${w.format}, target >= ${w.min}×; ${met} of ${h.exports.length} met)`;
  const importPart =
    h.imports.length === 0
      ? `import / posthog-node n/a (target >= ${TARGETS.importVsPeer}×)`
      : `import / posthog-node ${h.imports.map((i) => `${times(i.ratio)} ${i.kind}`).join(', ')} (target >= ${TARGETS.importVsPeer}×)`;
  const linePart = h.lines === undefined ? '' : `; rows/s at the large size vs the baseline ${h.lines.map((l) => `${times(l.ratio)} ${l.format}`).join(', ')} (target >= ${TARGETS.straightLine}×)`;
  return `${exportPart}; ${importPart}${linePart}`;
}

/**
 * Footnotes the rows need.
 * @param {readonly Row[]} rows
 */
export function footnotes(rows) {
  return rows.some((r) => r.met.endsWith('*')) ? [`* measured below ${count(TARGETS.atEvents)} events; the target is set at ${count(TARGETS.atEvents)}, so this is an indication only.`] : [];
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
