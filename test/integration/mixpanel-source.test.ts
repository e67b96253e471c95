/**
 * `export-source --from mixpanel` on fixtures/mixpanel: two overlapping raw exports in seconds
 * (one gzipped, its properties in another order) and one in milliseconds.
 * Import into the local server is the next step once `migrate import` lands: each test keeps
 * its staging file in `target`, ready for it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/json/canonical-json.js';
import { deriveUuid } from '../../src/events/stable-uuid.js';
import { exportSource, rejectsOf, stagingIn, statusOf } from '../helpers/export-source.js';
import { FIXTURES, runCli } from '../helpers/run-cli.js';
import { readStagedEvents } from '../helpers/staged-events.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const DIR = join(FIXTURES, 'mixpanel');
const FIRST = join(DIR, 'export-2025-09-01_2025-09-20.jsonl');
const IN_MS = join(DIR, 'export-2025-10-time_in_ms.jsonl');

describe('export-source --from mixpanel', () => {
  it('stages a directory of raw exports; overlapping exports collapse; a re-run stages nothing new', async () => {
    const target = stagingIn(tempDir());
    const first = await exportSource(target, ['--from', 'mixpanel', DIR]);
    expect(first.files.map((f: { displayName: string }) => f.displayName.slice(DIR.length + 1))).toEqual([
      'export-2025-09-01_2025-09-20.jsonl',
      'export-2025-09-15_2025-09-30.jsonl.gz',
      'export-2025-10-time_in_ms.jsonl',
    ]);
    expect(first.files.map((f: { staged: number; alreadyStaged: number }) => [f.staged, f.alreadyStaged])).toEqual([
      [248, 0],
      [112, 73],
      [120, 0],
    ]);
    expect(first.totals).toMatchObject({ rowsRead: 560, staged: 480, alreadyStaged: 73, duplicates: 1, rejected: 6 });

    const again = await runCli(['export-source', '--from', 'mixpanel', DIR, '--staging', target.staging, '--reread'], { cwd: target.dir });
    expect(again.code).toBe(0);
    expect(again.stdout.match(/^(?!All files).*: [\d,]+ rows read: 0 new, [\d,]+ already staged, /gm)).toHaveLength(3);
    expect((await statusOf(target)).events.count).toBe(480);
  });

  it('rejects each bad row with file, line, field and reason', async () => {
    const target = stagingIn(tempDir());
    await exportSource(target, ['--from', 'mixpanel', FIRST]);
    const rejects = await rejectsOf(target);
    expect(rejects.map((r) => [r.path, r.line, r.reason, r.field])).toEqual([
      [FIRST, 11, 'bad_json', ''],
      [FIRST, 36, 'missing_timestamp', 'properties.time'],
      [FIRST, 62, 'missing_distinct_id', 'properties.distinct_id'],
      [FIRST, 87, 'bad_properties', 'properties'],
      [FIRST, 112, 'future_timestamp', 'properties.time'],
      [FIRST, 137, 'missing_event', 'event'],
    ]);
    expect(rejects[0]!.raw).toContain('"plan":');
  });

  it('stages each event as PostHog expects it', async () => {
    const target = stagingIn(tempDir());
    await exportSource(target, ['--from', 'mixpanel', DIR]);
    const status = await statusOf(target);
    const names = status.topEvents.map((e: { name: string }) => e.name);
    expect(names).toContain('$pageview');
    expect(names).not.toContain('$mp_web_page_view');

    const events = readStagedEvents(target.staging);
    for (const event of events) {
      for (const internal of ['time', 'distinct_id', '$insert_id', 'mp_processing_time_ms', '$mp_api_endpoint', '$mp_api_timestamp_ms', '$city', 'mp_country_code']) {
        expect(event.properties).not.toHaveProperty(internal);
      }
      expect(event.properties).toHaveProperty('$geoip_country_code');
    }
    const pageviews = events.filter((e) => e.event === '$pageview');
    expect(pageviews.every((e) => e.properties.$host === 'shop.example.com' && typeof e.properties.$pathname === 'string')).toBe(true);
    expect(events.some((e) => e.properties.$geoip_city_name === '東京' && e.properties.$geoip_country_name === 'Japan')).toBe(true);
    expect(events.filter((e) => e.source === IN_MS).some((e) => !e.timestamp.endsWith('.000Z'))).toBe(true);
    expect(events.some((e) => e.distinct_id.startsWith('$device:'))).toBe(true);
  });

  it("derives the uuid of an event with $insert_id from Mixpanel's dedup key, as documented", async () => {
    const target = stagingIn(tempDir());
    await exportSource(target, ['--from', 'mixpanel', FIRST]);
    const records = readFileSync(FIRST, 'utf8')
      .split('\n')
      .slice(0, 10)
      .map((line) => JSON.parse(line));
    const index = records.findIndex((r) => r.properties.$insert_id);
    const { event, properties } = records[index];
    const expected = deriveUuid(canonicalJson(['mixpanel $insert_id', event, properties.distinct_id, properties.$insert_id]), properties.time * 1000);
    expect(readStagedEvents(target.staging).find((e) => e.uuid === expected)).toMatchObject({ distinct_id: properties.distinct_id, line: index + 1 });
  });

  it('reads time in the project zone with --timezone, and refuses another zone on a re-read', async () => {
    const utc = stagingIn(tempDir());
    await exportSource(utc, ['--from', 'mixpanel', IN_MS]);
    const zoned = stagingIn(tempDir());
    await exportSource(zoned, ['--from', 'mixpanel', IN_MS, '--timezone', 'America/New_York']);
    const shift = Date.parse(readStagedEvents(zoned.staging)[0]!.timestamp) - Date.parse(readStagedEvents(utc.staging)[0]!.timestamp);
    expect(shift).toBe(4 * 3600_000); // October in New York is UTC-4
    const refused = await runCli(['export-source', '--from', 'mixpanel', IN_MS, '--timezone', 'UTC', '--staging', zoned.staging], { cwd: zoned.dir });
    expect(refused.code).toBe(6);
    expect(refused.stderr).toContain('--timezone: was America/New_York, now UTC');
    // Adding a zone later would move every event, so it is refused too (unlike for CSV rows without one).
    const added = await runCli(['export-source', '--from', 'mixpanel', IN_MS, '--timezone', 'Europe/Paris', '--staging', utc.staging], { cwd: utc.dir });
    expect(added.code).toBe(6);
    expect(added.stderr).toContain('--timezone: was UTC, now Europe/Paris');
    expect((await exportSource(utc, ['--from', 'mixpanel', IN_MS, '--timezone', 'UTC'])).totals.staged).toBe(0);
  });
});
