#!/usr/bin/env node
// Writes a synthetic benchmark source of one format, from a fixed seed, and beside it
// `<out>.meta.json`: how many rows staging must stage, reject, skip and find repeated.
// Usage: node bench/generate-source.mjs [--format F] <out> [events=1000000]  (format csv by default)
// Formats: csv (flat columns and a small JSON properties column), csv-nested (nested JSON
// properties, quoted line ends), jsonl, mixpanel (raw export lines), amplitude (a zip of hourly
// gzipped JSON-lines files, as its Export API gives), posthog (batch-export lines), posthog-parquet
// (a batch export in Parquet, zstd; bench/generate-parquet.mjs), avro (the same rows in an Avro
// file, deflate; bench/generate-avro.mjs, read with --from avro).
import { once } from 'node:events';
import { createWriteStream, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { zipDirectory, zipEntryHeaders } from '../scripts/zip-writer.mjs';
import { amplitudeRows, csvNestedRows, CSV_NESTED_HEADER, jsonlRows, KINDS, mixpanelRows, posthogRows, SPAN_MS, START_MS } from './lib/source-rows.mjs';

const FORMATS = ['csv', 'csv-nested', 'jsonl', 'mixpanel', 'amplitude', 'posthog', 'posthog-parquet', 'avro'];

const args = process.argv.slice(2);
const formatAt = args.findIndex((a) => a === '--format' || a.startsWith('--format='));
const format = formatAt === -1 ? 'csv' : args[formatAt].includes('=') ? args[formatAt].slice(9) : args[formatAt + 1];
if (formatAt !== -1) args.splice(formatAt, args[formatAt].includes('=') ? 1 : 2);
const [out, countArg] = args;
if (!FORMATS.includes(format) || !out) {
  console.error(`usage: node bench/generate-source.mjs [--format ${FORMATS.join('|')}] <out> [events]`);
  process.exit(2);
}
const total = Number(countArg ?? 1_000_000);
const counts = Object.fromEntries(KINDS.map((k) => [k, 0]));
if (format === 'posthog-parquet') {
  // Written by DuckDB, loaded only for this format.
  const { generateParquet } = await import('./generate-parquet.mjs');
  const expect = await generateParquet(out, total);
  writeFileSync(`${out}.meta.json`, `${JSON.stringify({ format, events: total, files: 1, expect: { ...counts, ...expect } })}\n`);
  process.exit(0);
}
if (format === 'avro') {
  // Written by the project's own Avro writer (not avsc, the reader), loaded only for this format.
  const { generateAvro } = await import('./generate-avro.mjs');
  const expect = await generateAvro(out, total);
  writeFileSync(`${out}.meta.json`, `${JSON.stringify({ format, events: total, files: 1, expect: { ...counts, ...expect } })}\n`);
  process.exit(0);
}

/** Writes `bytes`, waiting when the stream asks to. */
async function write(stream, bytes) {
  if (!stream.write(bytes)) await once(stream, 'drain');
}

async function close(stream) {
  stream.end();
  await once(stream, 'close');
}

/** The flat CSV of the earlier benchmark runs, unchanged (same seed, same bytes). */
async function flatCsv(stream) {
  let seed = 42;
  const random = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const events = ['pageview', 'button_clicked', 'signed_up', 'purchase', 'search', 'page_view'];
  const paths = ['/', '/pricing', '/docs/getting-started', '/blog/launch', '/app/dashboard', '/app/settings'];
  const browsers = ['Chrome', 'Firefox', 'Safari', 'Edge'];
  const start = Date.UTC(2024, 0, 1);
  const spanMs = 300 * 24 * 3600 * 1000;
  await write(stream, 'event,distinct_id,timestamp,$current_url,$browser,plan,properties\n');
  for (let i = 0; i < total; i++) {
    const ts = new Date(start + Math.floor((i / total) * spanMs) + Math.floor(random() * 1000)).toISOString();
    const user = `user_${Math.floor(random() * 50_000)}`;
    const props = JSON.stringify({ session_id: `s${Math.floor(random() * 1e9)}`, $screen_width: 1280 + Math.floor(random() * 640), utm_source: random() < 0.3 ? 'newsletter' : 'google' });
    const row = `${events[Math.floor(random() * events.length)]},${user},${ts},https://example.com${paths[Math.floor(random() * paths.length)]},${browsers[Math.floor(random() * 4)]},${random() < 0.2 ? 'pro' : 'free'},"${props.replaceAll('"', '""')}"\n`;
    await write(stream, row);
    counts.staged++;
  }
}

/** Rows one per line (or record), with an optional header. */
async function lines(stream, next, header = '') {
  if (header !== '') await write(stream, header);
  const batch = [];
  for (let i = 0; i < total; i++) {
    const { bytes, kind } = next(i, total);
    counts[kind]++;
    batch.push(bytes);
    if (batch.length === 256) await write(stream, Buffer.concat(batch.splice(0)));
  }
  if (batch.length > 0) await write(stream, Buffer.concat(batch));
}

/**
 * Amplitude's export: a zip holding one gzipped JSON-lines file per hour of the span
 * (`<project>/<project>_<day>_<hour>#0.json.gz`), entries stored since they are gzip already.
 */
async function amplitudeZip(stream) {
  const next = amplitudeRows(4242);
  const centrals = [];
  let offset = 0;
  let rows = [];
  let hour = -1;
  const flush = async () => {
    if (rows.length === 0) return;
    const at = new Date(START_MS + hour * 3_600_000).toISOString();
    const name = `123456/123456_${at.slice(0, 10)}_${Number(at.slice(11, 13))}#0.json.gz`;
    const data = gzipSync(Buffer.concat(rows), { level: 6 });
    // Stored: the entry is gzip already.
    const { local, central } = zipEntryHeaders({ name, data, body: data, method: 'store', offset });
    await write(stream, local);
    await write(stream, data);
    offset += local.length + data.length;
    centrals.push(central);
    rows = [];
  };
  for (let i = 0; i < total; i++) {
    const rowHour = Math.floor(((i / total) * SPAN_MS) / 3_600_000);
    if (rowHour !== hour) {
      await flush();
      hour = rowHour;
    }
    const { bytes, kind } = next(i, total);
    counts[kind]++;
    rows.push(bytes);
  }
  await flush();
  if (offset > 0xffff_ffff) throw new Error('the archive would need zip64: generate fewer events');
  await write(stream, zipDirectory(centrals, offset));
  return centrals.length;
}

const stream = createWriteStream(out);
let files = 1;
if (format === 'csv') await flatCsv(stream);
else if (format === 'csv-nested') await lines(stream, csvNestedRows(1001), CSV_NESTED_HEADER);
else if (format === 'jsonl') await lines(stream, jsonlRows(2002));
else if (format === 'mixpanel') await lines(stream, mixpanelRows(3003));
else if (format === 'posthog') await lines(stream, posthogRows(5005));
else files = await amplitudeZip(stream);
await close(stream);
writeFileSync(`${out}.meta.json`, `${JSON.stringify({ format, events: total, files, expect: counts })}\n`);
