// Pure: the bench's command line (no I/O), so it can be tested table-driven.

/**
 * The measured steps, in the order they run: floor and export for each format (and, for
 * mixpanel, the same file staged from moto's S3 server: bucket; for csv, export-source again
 * over the unchanged file: rerun), then import, peer and status; then pace, the import against
 * the sandbox's capture rate limit (its own small source).
 */
export const STEPS = ['floor', 'export', 'bucket', 'rerun', 'import', 'peer', 'status', 'pace'];

/**
 * The source formats, each generated with a fixed seed (bench/generate-source.mjs): the flat
 * CSV of the earlier runs, a CSV with nested JSON properties and quoted line ends, plain JSON
 * lines, the vendors' exports, and the PostHog batch-export shape in Parquet and in Avro. Import and the peer run on the two CSVs (flat and nested).
 */
export const FORMATS = ['csv', 'csv-nested', 'jsonl', 'mixpanel', 'amplitude', 'posthog', 'posthog-parquet', 'avro'];

export const DEFAULT_EVENTS = 1_000_000;
/**
 * posthog-node sends about 20,000 events/s on a 2-core machine (one batch in flight at a time,
 * CPU-bound; less over small prefixes, where start-up weighs more), so a prefix of this many
 * events keeps its step under about half a minute; the ratio uses rates, not totals.
 */
export const DEFAULT_PEER_EVENTS = 500_000;

export const USAGE = `usage: npm run bench -- [--events N] [--formats LIST] [--peer-events N] [--only STEPS] [--baseline N|none] [--keep] [--out FILE | --no-write]
  --events N        events in each generated source (default 1000000; 200k, 1m, 5m, 20m and 5_000_000 work too):
                    npm run bench -- --events 1m    the one-million run (the default)
                    npm run bench -- --events 5m    the five-million run (about half an hour; 10 GB in .bench/)
                    npm run bench -- --events 20m --formats mixpanel,amplitude
                                                    the twenty-million run (hours on 2 cores; sources are
                                                    written as a stream: 20 GB Mixpanel, 3.7 GB Amplitude,
                                                    plus up to 25 GB of staging; no bucket step)
  --formats LIST    comma-separated subset of ${FORMATS.join(',')} (default all); each gets a
                    floor (a bare pass over the same file) and an export-source run
  --peer-events N   events posthog-node sends, a prefix of each CSV (default min(events, ${DEFAULT_PEER_EVENTS}))
  --only STEPS      comma-separated subset of ${STEPS.join(',')} (default all); import, peer and status
                    run on csv (flat) and csv-nested (nested properties) when those formats are chosen;
                    import and status without export use the staging files a previous --keep run left in .bench/
  --baseline N      above ${DEFAULT_EVENTS.toLocaleString('en-US')} events, each format is also staged from a source of
                    this many events (default ${DEFAULT_EVENTS.toLocaleString('en-US')}) just before the large one, and the
                    table compares the two (rows/s at N at least 0.85x the baseline's, CPU per row,
                    peak RSS at both sizes); none leaves it out
  --keep            keep the staging files in .bench/ (the generated sources are always kept and reused)
  --out FILE        where the run's section is written (default BENCHMARKS.md)
  --no-write        print the tables only
  --help            this text`;

const SUFFIXES = { k: 1_000, m: 1_000_000 };

/**
 * A positive event count: digits with optional `_` or `,` separators, or a k/m suffix.
 * @param {string} text
 * @returns {number | undefined}
 */
export function parseCount(text) {
  const match = /^(\d+(?:[_,]\d+)*(?:\.\d+)?)([km]?)$/i.exec(text.trim());
  if (!match) return undefined;
  const value = Number(match[1].replaceAll(/[_,]/g, '')) * (SUFFIXES[/** @type {'k'|'m'} */ (match[2].toLowerCase())] ?? 1);
  return Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

/**
 * Names from a comma-separated list, in the order of `known`.
 * @param {string} flag
 * @param {string} text
 * @param {readonly string[]} known
 * @param {string} what
 * @returns {string[] | string} the names, or a problem
 */
function parseList(flag, text, known, what) {
  const names = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const unknown = names.filter((n) => !known.includes(n));
  if (unknown.length > 0) return `${flag}: unknown ${what} ${unknown.join(', ')} (${what}s: ${known.join(', ')})`;
  if (names.length === 0) return `${flag}: name at least one ${what}`;
  return known.filter((s) => names.includes(s));
}

/**
 * @typedef {object} BenchOptions
 * @property {number} events events in the generated source
 * @property {number} peerEvents events posthog-node sends (a prefix)
 * @property {string[]} steps steps to run, in run order
 * @property {string[]} formats source formats, in run order
 * @property {number | null} baselineEvents events of the smaller source each format is also staged from, or null
 * @property {boolean} keep keep staging files
 * @property {string | null} out file for the run's section, or null for none
 */

/**
 * @param {readonly string[]} argv arguments after the script name
 * @returns {{ options: BenchOptions } | { help: true } | { error: string }}
 */
export function parseBenchArgs(argv) {
  /** @type {Record<string, string | boolean>} */
  const seen = {};
  const valued = new Set(['--events', '--peer-events', '--only', '--formats', '--out', '--baseline']);
  const flags = new Set(['--keep', '--no-write', '--help', '-h']);
  for (let i = 0; i < argv.length; i++) {
    const arg = /** @type {string} */ (argv[i]);
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    if (flags.has(name) && eq < 0) seen[name] = true;
    else if (valued.has(name)) {
      const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined || value === '') return { error: `${name} needs a value` };
      seen[name] = value;
    } else return { error: `unknown argument ${arg}` };
  }
  if (seen['--help'] || seen['-h']) return { help: true };
  return optionsOf(seen);
}

/**
 * @param {Record<string, string | boolean>} seen
 * @returns {{ options: BenchOptions } | { error: string }}
 */
function optionsOf(seen) {
  const events = seen['--events'] === undefined ? DEFAULT_EVENTS : parseCount(String(seen['--events']));
  if (events === undefined) return { error: `--events ${seen['--events']}: expected a positive whole number (e.g. 200000, 200k, 5m)` };
  const peerEvents = seen['--peer-events'] === undefined ? Math.min(events, DEFAULT_PEER_EVENTS) : parseCount(String(seen['--peer-events']));
  if (peerEvents === undefined) return { error: `--peer-events ${seen['--peer-events']}: expected a positive whole number` };
  if (peerEvents > events) return { error: `--peer-events ${peerEvents} is more than --events ${events}: the peer sends a prefix of the source` };
  const steps = seen['--only'] === undefined ? [...STEPS] : parseList('--only', String(seen['--only']), STEPS, 'step');
  if (typeof steps === 'string') return { error: steps };
  const formats = seen['--formats'] === undefined ? [...FORMATS] : parseList('--formats', String(seen['--formats']), FORMATS, 'format');
  if (typeof formats === 'string') return { error: formats };
  if (seen['--out'] !== undefined && seen['--no-write']) return { error: '--out and --no-write exclude each other' };
  const out = seen['--no-write'] ? null : String(seen['--out'] ?? 'BENCHMARKS.md');
  const baselineEvents = baselineOf(seen['--baseline'], events);
  if (typeof baselineEvents === 'string') return { error: baselineEvents };
  return { options: { events, peerEvents, steps, formats, baselineEvents, keep: seen['--keep'] === true, out } };
}

/**
 * The straight-line comparison's smaller size: by default the one-million run, for runs above it.
 * @param {string | boolean | undefined} given
 * @param {number} events
 * @returns {number | null | string} the count, null for none, or a problem
 */
function baselineOf(given, events) {
  if (given === undefined) return events > DEFAULT_EVENTS ? DEFAULT_EVENTS : null;
  if (given === 'none') return null;
  const n = parseCount(String(given));
  if (n === undefined) return `--baseline ${given}: expected a positive whole number or none`;
  if (n >= events) return `--baseline ${n} is not less than --events ${events}: the baseline is the smaller run`;
  return n;
}
