/**
 * `export-source --from amplitude-api` (the built CLI) against a stand-in of Amplitude's Export
 * API: hour ranges as zips of gzipped files, staged as `--from amplitude` stages the same zip;
 * empty hours (404), a range over the size cap (400) and a gateway timeout (504) split in
 * halves; ranges sized from the data; retries; kill -9 mid-range, then a re-run.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startAmplitudeStandin, type AmplitudeStandin } from '../helpers/amplitude-api-standin.js';
import { basicAuth } from '../helpers/export-api-standin.js';
import { exportSource, rejectsOf, stagingIn, statusOf } from '../helpers/export-source.js';
import { AMPLITUDE_KEY, AMPLITUDE_SECRET, amplitudeTarget, fetchApi, startFetch, type ApiTarget } from '../helpers/source-api-cli.js';
import { readStagedEvents } from '../helpers/staged-events.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const PROJECT = 187520;

function hourName(day: string, hour: number): string {
  return `${day.replaceAll('-', '')}T${String(hour).padStart(2, '0')}`;
}

function hourEvents(day: string, hour: number, n: number): Array<Record<string, unknown>> {
  return Array.from({ length: n }, (_, i) => ({
    event_type: i % 4 === 0 ? '[Amplitude] Page Viewed' : 'Play Song',
    user_id: `user_${i % 3}`,
    device_id: `device-${i % 5}`,
    event_time: `${day} ${String(hour).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:07.125000`,
    uuid: `8f0c6a4e-${day.replaceAll('-', '').slice(4)}-4${String(hour).padStart(3, '0')}-9000-${String(i).padStart(12, '0')}`,
    event_properties: { song: `s${i}` },
    user_properties: { plan: 'free' },
  }));
}

/** Events at hours 9 and 14 of each day; the other hours are empty. */
function sampleHours(days: string[], perHour = 6): Record<string, Array<Record<string, unknown>>> {
  return Object.fromEntries(days.flatMap((day) => [9, 14].map((h) => [hourName(day, h), hourEvents(day, h, perHour)])));
}

/** The answer with a byte of its first file's data flipped: the file no longer matches its CRC-32. */
function damageFirstEntry(zip: Buffer): Buffer {
  const out = Buffer.from(zip);
  const data = 30 + out.readUInt16LE(26) + out.readUInt16LE(28);
  out[data + Math.floor(out.readUInt32LE(18) / 2)]! ^= 0xff;
  return out;
}

const standins: AmplitudeStandin[] = [];
afterEach(async () => {
  for (const s of standins.splice(0)) await s.close();
});

async function setup(hours: Record<string, Array<Record<string, unknown> | string>>, extra: { maxBytes?: number; eventsPerFile?: number } = {}) {
  const standin = await startAmplitudeStandin({ apiKey: AMPLITUDE_KEY, secretKey: AMPLITUDE_SECRET, projectId: PROJECT, hours, ...extra });
  standins.push(standin);
  return { standin, target: amplitudeTarget(tempDir(), standin.url) };
}

const DAYS = ['2025-09-01', '2025-09-02', '2025-09-03'];

function fetchHours(target: ApiTarget, start: string, end: string, extra: string[] = []) {
  return fetchApi(target, 'amplitude-api', start, end, ['--json', ...extra]);
}

function json(result: { stdout: string; stderr: string; code: number | null }) {
  if (result.stdout === '') throw new Error(`no output (exit ${result.code}): ${result.stderr}`);
  return JSON.parse(result.stdout);
}

describe('export-source --from amplitude-api', () => {
  it('stages each range as --from amplitude stages the same zip, one read per file', async () => {
    const { standin, target } = await setup(sampleHours(DAYS), { eventsPerFile: 4 });
    const result = await fetchHours(target, '2025-09-01T00', '2025-09-03T23', ['--hours-per-request', '24']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(standin.ranges()).toEqual(['20250901T00-20250901T23', '20250902T00-20250902T23', '20250903T00-20250903T23']);
    const summary = json(result);
    expect(summary.source).toMatch(/^amplitude-api:[0-9a-f]{12}$/);
    expect(summary.totals).toMatchObject({ rowsRead: 36, staged: 36, rejected: 0 });
    // Neither the secret key nor the API key (the project is named by a digest of it) is written anywhere.
    for (const text of [result.stdout, readFileSync(target.staging).toString('latin1')]) {
      expect(text).not.toContain(AMPLITUDE_SECRET);
      expect(text).not.toContain(AMPLITUDE_KEY);
    }

    const zip = join(target.dir, 'export.zip');
    const answer = await fetch(`${standin.url}/api/2/export?start=20250901T00&end=20250903T23`, { headers: { authorization: basicAuth(AMPLITUDE_KEY, AMPLITUDE_SECRET) } });
    writeFileSync(zip, Buffer.from(await answer.arrayBuffer()));
    const other = stagingIn(tempDir());
    await exportSource(other, ['--from', 'amplitude', zip]);
    // Each staging file has its own $import_run; everything else is the same.
    const strip = ({ source: _s, line: _l, properties: { $import_run: _r, ...properties }, ...event }: ReturnType<typeof readStagedEvents>[number]) => ({ ...event, properties });
    const byUuid = (a: { uuid: string }, b: { uuid: string }) => a.uuid.localeCompare(b.uuid);
    const fromApi = readStagedEvents(target.staging);
    expect(fromApi.map(strip).sort(byUuid)).toEqual(readStagedEvents(other.staging).map(strip).sort(byUuid));
    // The identity links and group updates derived after staging come from no file ('').
    expect(new Set(fromApi.filter((e) => e.source !== '').map((e) => e.source))).toEqual(
      new Set(
        DAYS.flatMap((day) =>
          [9, 14].flatMap((h) =>
            [0, 1].map((n) => {
              const compact = day.replaceAll('-', '');
              return `${summary.source}:${compact}T00-${compact}T23!${PROJECT}_${day}_${h}#${n}.json.gz`;
            }),
          ),
        ),
      ),
    );
  });

  it('sizes ranges from the data: a day first, then as many hours as the target allows', async () => {
    const { standin, target } = await setup(sampleHours(DAYS));
    const result = await fetchHours(target, '2025-09-01T00', '2025-09-03T23');
    expect(result.code).toBe(0);
    expect(standin.ranges()).toEqual(['20250901T00-20250901T23', '20250902T00-20250903T23']);
    expect(json(result).ledger).toEqual({ done: 2, empty: 0, failed: 0, pending: 0 });

    const again = await fetchHours(target, '2025-09-01T00', '2025-09-03T23');
    expect(json(again)).toMatchObject({ alreadyDone: { ranges: 2, units: 72 }, requests: 0 });
    expect(standin.ranges()).toHaveLength(2);
  });

  it('records hours without data (404) as empty, and names the hour and line of each reject', async () => {
    const hours: Record<string, Array<Record<string, unknown> | string>> = sampleHours([DAYS[0]!], 2);
    hours[hourName(DAYS[0]!, 14)]!.push('{"event_type": "cut', { event_type: 'No ids', event_time: '2025-09-01 14:00:00.000000', uuid: '8f0c6a4e-0901-4014-9000-00000000ffff' });
    const { standin, target } = await setup(hours);
    const result = await fetchHours(target, '2025-08-31T00', '2025-09-01T23', ['--hours-per-request', '12']);
    expect(result.code).toBe(0);
    expect(standin.ranges()).toEqual(['20250831T00-20250831T11', '20250831T12-20250831T23', '20250901T00-20250901T11', '20250901T12-20250901T23']);
    expect(json(result).ledger).toEqual({ done: 2, empty: 2, failed: 0, pending: 0 });
    const rejects = await rejectsOf(stagingIn(target.dir));
    const source = json(result).source;
    expect(rejects.map((r) => [r.path, r.line, r.reason])).toEqual([
      [`${source}:20250901T12-20250901T23!${PROJECT}_2025-09-01_14#0.json.gz`, 3, 'bad_json'],
      [`${source}:20250901T12-20250901T23!${PROJECT}_2025-09-01_14#0.json.gz`, 4, 'missing_distinct_id'],
    ]);
  });

  it('splits a range refused as too large (400) or timed out (504) into halves, down to what fits', async () => {
    const { standin, target } = await setup(sampleHours(DAYS, 20), { maxBytes: 12_000 });
    standin.inject('20250903T00-20250903T23', { type: 'answer', status: 504, body: 'Gateway Timeout' });
    const result = await fetchHours(target, '2025-09-01T00', '2025-09-03T23', ['--hours-per-request', '48']);
    expect(result.code).toBe(0);
    expect(standin.ranges()).toEqual([
      '20250901T00-20250902T23', // refused: 4 hours of 20 events are over the cap
      '20250901T00-20250901T23',
      '20250902T00-20250902T23',
      '20250903T00-20250903T23', // 504
      '20250903T00-20250903T11',
      '20250903T12-20250903T23',
    ]);
    const summary = json(result);
    expect(summary.totals).toMatchObject({ rowsRead: 120, staged: 120 });
    expect(summary.ranges.map((r: { status: string }) => r.status)).toEqual(['split', 'done', 'done', 'split', 'done', 'done']);
    // Rows read from the ranges; the identity links and group updates derived from them come from no file.
    expect(readStagedEvents(target.staging).filter((e) => e.source !== '')).toHaveLength(120);
  });

  it('fails an hour too large on its own with the S3 hint (exit 8); the rest is staged', async () => {
    const { target } = await setup(sampleHours([DAYS[0]!], 40), { maxBytes: 6_000 });
    const result = await fetchHours(target, '2025-09-01T08', '2025-09-01T15', ['--hours-per-request', '8']);
    expect(result.code).toBe(8);
    const summary = json(result);
    expect(summary.ledger).toEqual({ failed: 2, done: 0, empty: 4, pending: 0 });
    expect(summary.ranges.filter((r: { status: string }) => r.status === 'failed').map((r: { error: string }) => r.error)).toEqual([
      expect.stringContaining(
        "Amplitude refused the hour 20250901T09 as too large to export at once (HTTP 400: Raw data files were too large (over 4GB); shorten the time range); export that hour with Amplitude's Amazon S3 export",
      ),
      expect.stringContaining('20250901T14'),
    ]);
  });

  it('retries 429 and a connection dropped mid-body; a window without any data is not recorded as empty (exit 3)', async () => {
    const { standin, target } = await setup(sampleHours([DAYS[0]!]));
    standin.inject('*', { type: 'answer', status: 429, headers: { 'retry-after': '0' }, body: 'Too many requests' }, { type: 'drop-mid-body' });
    const result = await fetchHours(target, '2025-09-01T00', '2025-09-01T23');
    expect(result.code).toBe(0);
    expect(json(result).ranges).toEqual([expect.objectContaining({ status: 'done', requests: 3, rowsRead: 12 })]);

    const nothing = await amplitudeTarget(tempDir(), standin.url);
    const empty = await fetchHours(nothing, '2025-07-01T00', '2025-07-02T23');
    expect(empty.code).toBe(3);
    expect(empty.stderr).toContain('Amplitude gave no data for any hour from 20250701T00 to 20250702T23');
    expect(json(empty).ledger).toEqual({ done: 0, empty: 0, failed: 0, pending: 2 });
  });

  it('retries a 200 that is not a zip archive (an HTML page, an error object)', async () => {
    const { standin, target } = await setup(sampleHours([DAYS[0]!]));
    standin.inject('*', { type: 'answer', status: 200, headers: { 'content-type': 'text/html' }, body: '<html><body>Service temporarily unavailable</body></html>' });
    standin.inject('*', { type: 'answer', status: 200, headers: { 'content-type': 'application/json' }, body: '{"error": "Internal error, please retry"}' });
    const result = await fetchHours(target, '2025-09-01T00', '2025-09-01T23');
    expect(result.code, result.stderr).toBe(0);
    expect(json(result).ranges).toEqual([expect.objectContaining({ status: 'done', requests: 3, rowsRead: 12 })]);
  });

  it('fetches the hours of a failed range that a later window starts inside, and the rest once a window holds them', async () => {
    // Users only, no devices: hours staged out of time order link no devices (see the identity pass).
    const usersOnly = Object.fromEntries(Object.entries(sampleHours([DAYS[0]!, DAYS[1]!])).map(([hour, events]) => [hour, events.map(({ device_id: _d, ...e }) => e)]));
    const { standin, target } = await setup(usersOnly);
    standin.inject('20250901T00-20250901T23', { type: 'mangle', mangle: damageFirstEntry });
    const first = await fetchHours(target, '2025-09-01T00', '2025-09-01T23');
    expect(first.code).toBe(8);
    expect(json(first).ranges).toEqual([expect.objectContaining({ status: 'failed', error: expect.stringContaining('CRC-32') })]);

    const later = await fetchHours(target, '2025-09-01T12', '2025-09-02T23');
    expect(later.code, later.stderr).toBe(0);
    expect(standin.ranges().slice(1)).toEqual(['20250901T12-20250901T23', '20250902T00-20250902T23']);
    expect(json(later).ledger).toEqual({ done: 2, empty: 0, failed: 0, pending: 0 });
    const hoursStaged = () =>
      new Set(
        readStagedEvents(target.staging)
          .filter((e) => e.source !== '')
          .map((e) => e.timestamp.slice(0, 13)),
      );
    expect(hoursStaged()).toEqual(new Set(['2025-09-01T14', '2025-09-02T09', '2025-09-02T14']));

    // The hours before the later window stay failed until a window holds them.
    const status = await statusOf(stagingIn(target.dir));
    expect(status.ranges[0].counts).toMatchObject({ failed: 1, done: 2, pending: 0, fetching: 0 });
    const whole = await fetchHours(target, '2025-09-01T00', '2025-09-02T23');
    expect(whole.code, whole.stderr + whole.stdout).toBe(0);
    expect(standin.ranges().slice(3)).toEqual(['20250901T00-20250901T11']);
    expect(hoursStaged()).toEqual(new Set(['2025-09-01T09', '2025-09-01T14', '2025-09-02T09', '2025-09-02T14']));
  });

  it('after kill -9 in the middle of a range, a re-run refetches that range only and stages every event once', async () => {
    const { standin, target } = await setup(sampleHours(DAYS));
    standin.inject('20250902T00-20250902T23', { type: 'stall' });
    const { child, done } = startFetch(target, 'amplitude-api', '2025-09-01T00', '2025-09-03T23', ['--hours-per-request', '24']);
    // The range is recorded as being fetched before its request goes out; half its answer is on the wire.
    await standin.stalled();
    child.kill('SIGKILL');
    expect((await done).signal).toBe('SIGKILL');
    standin.release();

    const again = await fetchHours(target, '2025-09-01T00', '2025-09-03T23', ['--hours-per-request', '24']);
    expect(again.code).toBe(0);
    expect(standin.ranges()).toEqual(['20250901T00-20250901T23', '20250902T00-20250902T23', '20250902T00-20250902T23', '20250903T00-20250903T23']);
    expect(json(again).recovered).toEqual([`${json(again).source}:20250902T00-20250902T23`]);
    const events = readStagedEvents(target.staging).filter((e) => e.source !== '');
    expect(events).toHaveLength(36);
    expect((await statusOf(stagingIn(target.dir))).ranges[0].counts).toMatchObject({ done: 3, pending: 0, fetching: 0 });
  });
});
