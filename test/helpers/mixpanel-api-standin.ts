/**
 * A stand-in for Mixpanel's raw event export API, written from its public reference:
 * `GET /api/2.0/export?from_date=YYYY-MM-DD&to_date=YYYY-MM-DD&project_id=N[&time_in_ms=true]`,
 * HTTP Basic credentials of a service account, an answer of JSON lines (gzipped when the
 * request accepts gzip), errors as `{"request": ..., "error": ...}`. Like the real export, its
 * answers are not byte-stable: each download of a day after the first lists its events in
 * another order, with their keys in another order and another `mp_processing_time_ms`.
 */
import { gzipSync } from 'node:zlib';
import { basicAuth, jsonAnswer, startStandin, type StandinServer } from './export-api-standin.js';
import { engageStandin, type EngageOptions, type EngageStandin } from './mixpanel-engage-standin.js';

/** A Mixpanel event as stored: `time` in milliseconds; the answer gives seconds unless `time_in_ms=true`. */
export interface MixpanelRecord {
  event: string;
  properties: Record<string, unknown> & { time: number };
}

export interface MixpanelStandinOptions {
  projectId: string;
  username: string;
  secret: string;
  /** Events by day (`YYYY-MM-DD`), or raw lines (a string) to serve as they are. */
  days: Record<string, Array<MixpanelRecord | string>>;
  /** Profiles served by the Engage API (`POST /api/query/engage`); see mixpanel-engage-standin.ts. */
  engage?: Omit<EngageOptions, 'projectId'>;
}

export interface MixpanelStandin extends StandinServer {
  /** Days asked for, in request order. */
  days(): string[];
  /** The Engage API's controls, when it serves profiles. */
  engage?: EngageStandin;
}

function reversedKeys(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).reverse());
}

/** One download's rendering of a record: the order of keys and the processing time differ by download. */
function render(record: MixpanelRecord | string, download: number, inMs: boolean): string {
  if (typeof record === 'string') return record;
  const time = inMs ? record.properties.time : Math.floor(record.properties.time / 1000);
  const properties = { ...record.properties, time, mp_processing_time_ms: record.properties.time + 1000 + download };
  return JSON.stringify(download % 2 === 1 ? { properties: reversedKeys(properties), event: record.event } : { event: record.event, properties });
}

function daysBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000) out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

export async function startMixpanelStandin(options: MixpanelStandinOptions): Promise<MixpanelStandin> {
  const downloads = new Map<string, number>();
  const engage = options.engage === undefined ? undefined : engageStandin({ ...options.engage, projectId: options.projectId });
  const server = await startStandin(basicAuth(options.username, options.secret), {
    ...(engage === undefined ? {} : { form: engage.form }),
    path: '/api/2.0/export',
    key: (query) => query.from_date ?? '',
    unauthorized: () => jsonAnswer(401, { request: '/api/2.0/export', error: 'Invalid service account credentials' }),
    answer(query, acceptEncoding) {
      const request = `/api/2.0/export?${new URLSearchParams(query)}`;
      if (!query.from_date || !query.to_date) return jsonAnswer(400, { request, error: "'from_date' and 'to_date' are required parameters" });
      if (query.project_id !== options.projectId) return jsonAnswer(403, { request, error: `service account has no access to project ${query.project_id}` });
      const lines = daysBetween(query.from_date, query.to_date).flatMap((day) => {
        const download = downloads.get(day) ?? 0;
        downloads.set(day, download + 1);
        const records = options.days[day] ?? [];
        const shift = download % Math.max(1, records.length);
        return [...records.slice(shift), ...records.slice(0, shift)].map((r) => render(r, download, query.time_in_ms === 'true'));
      });
      const text = Buffer.from(lines.map((line) => `${line}\n`).join(''));
      const gzip = acceptEncoding.includes('gzip');
      return { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8', ...(gzip ? { 'content-encoding': 'gzip' } : {}) }, body: gzip ? gzipSync(text) : text };
    },
  });
  return { ...server, engage, days: () => server.requests.filter((r) => r.path === '/api/2.0/export').map((r) => r.query.from_date ?? '') };
}
