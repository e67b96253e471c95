/**
 * A stand-in for Amplitude's Export API, written from its public reference:
 * `GET /api/2/export?start=YYYYMMDDTHH&end=YYYYMMDDTHH` (hours inclusive), HTTP Basic
 * credentials of the API key and secret key, an answer that is a zip of gzipped JSON-lines
 * files named `<project>/<project>_<YYYY-MM-DD>_<H>#<n>.json.gz` (several per hour when an
 * hour is large), 404 when the range holds no data, 400 when it holds more than the size cap
 * (4 GB in Amplitude; `maxBytes` here), and 504 on demand for long ranges.
 */
import { gzipSync } from 'node:zlib';
import { makeZip } from '../../scripts/zip-writer.mjs';
import { basicAuth, startStandin, type RealAnswer, type StandinServer } from './export-api-standin.js';

export interface AmplitudeStandinOptions {
  apiKey: string;
  secretKey: string;
  projectId: number;
  /** Events (objects, or raw lines as strings) by hour (`YYYYMMDDTHH`). */
  hours: Record<string, Array<Record<string, unknown> | string>>;
  /** The size cap: a range whose JSON is larger is refused with 400. Default: none. */
  maxBytes?: number;
  /** Events per file within an hour. Default 1000. */
  eventsPerFile?: number;
}

export interface AmplitudeStandin extends StandinServer {
  /** `start-end` of each request, in order. */
  ranges(): string[];
}

const text = (status: number, body: string): RealAnswer => ({ status, headers: { 'content-type': 'text/plain' }, body: Buffer.from(body) });

function hourNumber(hour: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})$/.exec(hour);
  if (m === null) return Number.NaN;
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4])) / 3_600_000;
}

function hourName(hour: number): string {
  const iso = new Date(hour * 3_600_000).toISOString();
  return `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}T${iso.slice(11, 13)}`;
}

function entriesOf(options: AmplitudeStandinOptions, first: number, last: number): { entries: Array<{ name: string; data: Buffer }>; bytes: number } {
  const entries: Array<{ name: string; data: Buffer }> = [];
  let bytes = 0;
  const perFile = options.eventsPerFile ?? 1000;
  for (let hour = first; hour <= last; hour++) {
    const events = options.hours[hourName(hour)] ?? [];
    const iso = new Date(hour * 3_600_000).toISOString();
    for (let n = 0; n * perFile < events.length; n++) {
      const lines = events
        .slice(n * perFile, (n + 1) * perFile)
        .map((e) => (typeof e === 'string' ? e : JSON.stringify(e)) + '\n')
        .join('');
      bytes += Buffer.byteLength(lines);
      const name = `${options.projectId}/${options.projectId}_${iso.slice(0, 10)}_${Number(iso.slice(11, 13))}#${n}.json.gz`;
      entries.push({ name, data: gzipSync(lines) });
    }
  }
  return { entries, bytes };
}

export async function startAmplitudeStandin(options: AmplitudeStandinOptions): Promise<AmplitudeStandin> {
  const server = await startStandin(basicAuth(options.apiKey, options.secretKey), {
    path: '/api/2/export',
    key: (query) => `${query.start}-${query.end}`,
    unauthorized: () => text(401, 'Invalid API key or secret key'),
    answer(query) {
      const first = hourNumber(query.start ?? '');
      const last = hourNumber(query.end ?? '');
      if (Number.isNaN(first) || Number.isNaN(last) || last < first) return text(400, 'Invalid start or end (expected YYYYMMDDTHH)');
      if (last - first + 1 > 365 * 24) return text(400, 'The time range may not exceed 365 days');
      const { entries, bytes } = entriesOf(options, first, last);
      if (entries.length === 0) return text(404, 'No data available for the specified time range');
      if (options.maxBytes !== undefined && bytes > options.maxBytes) return text(400, 'Raw data files were too large (over 4GB); shorten the time range');
      return { status: 200, headers: { 'content-type': 'application/zip' }, body: makeZip(entries.map((e) => ({ ...e, method: 'store' as const }))) };
    },
  });
  return { ...server, ranges: () => server.requests.filter((r) => r.path === '/api/2/export').map((r) => `${r.query.start}-${r.query.end}`) };
}
