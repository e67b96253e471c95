/**
 * `export-source --from mixpanel` on fixtures/mixpanel-pipelines: the same four events as an old
 * raw pipeline writes them (the export API's lines, a `complete` marker beside them, a
 * `_SUCCESS` above) and as the current JSON pipelines write them (columns outside, properties
 * as an object or as JSON text, times in three shapes). Staged into one staging file, each
 * event is there once, as the export API's line would have staged it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportSource, rejectsOf, stagingIn } from '../helpers/export-source.js';
import { FIXTURES } from '../helpers/run-cli.js';
import { readStagedEvents, type StagedRow } from '../helpers/staged-events.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const DIR = join(FIXTURES, 'mixpanel-pipelines');
const RAW = join(DIR, 'raw');
const JSON_PIPELINE = join(DIR, 'json');

/** The source rows as staged, without the staging file's own `$import_run`. */
const content = (rows: StagedRow[]) =>
  rows.filter((e) => e.source !== '').map(({ uuid, event, distinct_id, timestamp, properties: { $import_run: _run, ...properties } }) => ({ uuid, event, distinct_id, timestamp, properties }));
const byUuid = (a: { uuid: string }, b: { uuid: string }) => (a.uuid < b.uuid ? -1 : 1);

describe('export-source --from mixpanel: data pipelines', () => {
  it('stages an event from an old raw pipeline and from a JSON pipeline once, with the same content', async () => {
    const raw = stagingIn(tempDir());
    const first = await exportSource(raw, ['--from', 'mixpanel', RAW]);
    // The markers are not sources: only the data file is read.
    expect(first.files.map((f: { displayName: string }) => f.displayName.slice(RAW.length + 1))).toEqual(['123456/2025/09/01/full_day/export.json']);
    expect(first.totals).toMatchObject({ rowsRead: 4, staged: 4, rejected: 0 });
    const fromRaw = content(readStagedEvents(raw.staging)).sort(byUuid);

    const json = stagingIn(tempDir());
    expect((await exportSource(json, ['--from', 'mixpanel', JSON_PIPELINE])).totals).toMatchObject({ rowsRead: 4, staged: 4, rejected: 0 });
    expect(content(readStagedEvents(json.staging)).sort(byUuid)).toEqual(fromRaw);

    // Both into one staging file: the second layout's rows are the events already staged.
    const both = await exportSource(raw, ['--from', 'mixpanel', JSON_PIPELINE]);
    expect(both.totals).toMatchObject({ rowsRead: 4, staged: 0, alreadyStaged: 4, rejected: 0 });
    expect(await rejectsOf(raw)).toEqual([]);
    const staged = readStagedEvents(raw.staging);
    expect(content(staged).sort(byUuid)).toEqual(fromRaw);
    expect(new Set(content(staged).map((e) => e.uuid)).size).toBe(4);

    // One identity link for the device that logged in, whichever layout showed it.
    const links = staged.filter((e) => e.source === '' && e.event === '$identify');
    expect(links.map((e) => [e.distinct_id, e.properties.$anon_distinct_id])).toEqual([['ana@example.com', '$device:d-41f0']]);
  });

  it("stages each event as the export API's line says", async () => {
    const target = stagingIn(tempDir());
    await exportSource(target, ['--from', 'mixpanel', JSON_PIPELINE]);
    const events = content(readStagedEvents(target.staging));
    const named = (name: string) => events.find((e) => e.event === name)!;
    expect(named('$pageview')).toMatchObject({
      distinct_id: '$device:d-41f0',
      timestamp: '2025-09-01T10:00:00.000Z',
      properties: { $device_id: 'd-41f0', $geoip_city_name: 'Lyon', $geoip_country_name: 'France', $host: 'shop.example.com', $pathname: '/pricing' },
    });
    expect(named('$pageview').properties).not.toHaveProperty('mp_processing_time_ms');
    expect(named('Signed Up')).toMatchObject({ distinct_id: 'ana@example.com', timestamp: '2025-09-01T10:02:00.000Z', properties: { $user_id: 'ana@example.com', plan: 'pro' } });
    expect(named('Purchase').properties).toMatchObject({
      amount: 49.5,
      items: [
        { sku: 'ZÜRICH-1', qty: 2 },
        { sku: '東京-7', qty: 1 },
      ],
      coupon: null,
    });
    expect(named('Exported Report')).toMatchObject({ distinct_id: 'legacy-77', timestamp: '2025-09-01T11:00:00.000Z' });
    for (const event of events) expect(event.properties).not.toHaveProperty('$insert_id');
  });

  it('an older project: export lines in the project zone (--timezone) and pipeline rows in UTC are the same events', async () => {
    const target = stagingIn(tempDir());
    const exported = join(target.dir, 'export.json');
    const pipeline = join(target.dir, 'pipeline.json');
    // 10:00 in New York is 14:00 UTC.
    writeFileSync(exported, JSON.stringify({ event: 'Paid', properties: { time: Date.UTC(2025, 8, 1, 10) / 1000, distinct_id: 'u-1', $insert_id: 'p-1', amount: 5 } }) + '\n');
    writeFileSync(pipeline, JSON.stringify({ event_name: 'Paid', time: '2025-09-01T14:00:00Z', distinct_id: 'u-1', insert_id: 'p-1', properties: { amount: 5 } }) + '\n');
    const result = await exportSource(target, ['--from', 'mixpanel', pipeline, exported, '--timezone', 'America/New_York']);
    expect(result.totals).toMatchObject({ rowsRead: 2, staged: 1, alreadyStaged: 1, rejected: 0 });
    expect(content(readStagedEvents(target.staging)).map((e) => e.timestamp)).toEqual(['2025-09-01T14:00:00.000Z']);
  });
});
