/**
 * `export-source --from amplitude` on fixtures/amplitude: the export as downloaded (a zip of
 * gzipped JSON-lines files), the same files unzipped, and two of them re-zipped on a Mac.
 * Import into the local server is the next step once `migrate import` lands: each test keeps
 * its staging file in `target`, ready for it.
 */
import { copyFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { exportSource, rejectsOf, stagingIn, statusOf } from '../helpers/export-source.js';
import { FIXTURES, runCli } from '../helpers/run-cli.js';
import { readStagedEvents, stagedTimeOf } from '../helpers/staged-events.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const DIR = join(FIXTURES, 'amplitude');
const ZIP = join(DIR, 'export-123456.zip');
const UNZIPPED = join(DIR, 'unzipped');
const AWKWARD_ENTRY = '123456/123456_2025-09-02_9#0.json.gz';

/** Every parseable source record of the unzipped export, by uuid. */
function sourceRecords(): Map<string, Record<string, unknown>> {
  const records = new Map<string, Record<string, unknown>>();
  const folder = join(UNZIPPED, '123456');
  for (const name of readdirSync(folder)) {
    for (const line of gunzipSync(readFileSync(join(folder, name)))
      .toString('utf8')
      .split('\n')) {
      try {
        const record = JSON.parse(line);
        if (typeof record.uuid === 'string') records.set(record.uuid, record);
      } catch {
        // The fixture's truncated line.
      }
    }
  }
  return records;
}

describe('export-source --from amplitude', () => {
  it('stages the zip entry by entry; the unzipped files and a re-zipped copy stage nothing new', async () => {
    const target = stagingIn(tempDir());
    const first = await exportSource(target, ['--from', 'amplitude', ZIP]);
    expect(first.files).toHaveLength(7);
    expect(first.files[0].displayName).toBe(`${ZIP}!123456/123456_2025-09-01_9#0.json.gz`);
    expect(first.totals).toMatchObject({ rowsRead: 218, staged: 150, skipped: 63, rejected: 5 });

    const again = await exportSource(target, ['--from', 'amplitude', UNZIPPED, join(DIR, 'rezipped-on-a-mac.zip')]);
    expect(again.files.map((f: { displayName: string }) => f.displayName.split('/').pop())).toEqual([
      ...readdirSync(join(UNZIPPED, '123456')).sort((a, b) => a.localeCompare(b, 'en', { numeric: true })),
      'rezipped-on-a-mac.zip!123456_2025-09-01_9#0.json',
      'rezipped-on-a-mac.zip!123456_2025-09-01_10#0.json',
    ]);
    expect(again.totals).toMatchObject({ staged: 0, alreadyStaged: 150 + 30, rejected: 5 });
    const status = await statusOf(target);
    expect(status.events.count).toBe(150);
    expect(status.sources).toHaveLength(7 + 7 + 2);
  });

  it('names the archive, the entry and the line of every reject', async () => {
    const target = stagingIn(tempDir());
    copyFileSync(ZIP, join(target.dir, 'export.zip'));
    await exportSource(target, ['--from', 'amplitude', 'export.zip']);
    const rejects = await runCli(['rejects', '--staging', target.staging], { cwd: target.dir });
    expect(rejects.stdout.trim().split('\n')).toEqual([
      `export.zip!${AWKWARD_ENTRY}:6 missing_distinct_id user_id, device_id: distinct_id is missing or empty`,
      `export.zip!${AWKWARD_ENTRY}:7 bad_uuid uuid: "not-a-uuid" is not a usable UUID`,
      `export.zip!${AWKWARD_ENTRY}:8 bad_timestamp event_time: "2025-09-31 10:00:00.000000 UTC" is not a real date and time`,
      `export.zip!${AWKWARD_ENTRY}:9 bad_properties event_properties: event_properties must be a JSON object`,
      expect.stringContaining(`export.zip!${AWKWARD_ENTRY}:10 bad_json not valid JSON`),
    ]);
    expect((await rejectsOf(target))[0]!.path).toBe(join(target.dir, `export.zip!${AWKWARD_ENTRY}`));
  });

  it('keeps uuids, reads event_time as UTC whatever the local zone, and maps as PostHog does', async () => {
    const target = stagingIn(tempDir());
    await exportSource(target, ['--from', 'amplitude', ZIP], { TZ: 'America/Los_Angeles' });
    const sources = sourceRecords();
    // The rows read from the files; identity links are derived after staging (amplitude-identity.test.ts).
    const events = readStagedEvents(target.staging).filter((e) => e.source !== '');
    const kept = events.filter((e) => sources.has(e.uuid));
    expect(kept.length).toBe(events.length - 1); // one event had no uuid: it got a derived one
    for (const event of kept) {
      const source = sources.get(event.uuid)!;
      expect(event.timestamp).toBe(stagedTimeOf(String(source.event_time)));
      expect(event.distinct_id).toBe(source.user_id ?? source.device_id);
      expect(event.properties.$amplitude_event_id).toBe(source.event_id);
    }
    expect(events.every((e) => typeof e.properties.$set === 'object')).toBe(true); // user_properties
    const names = new Set(events.map((e) => e.event));
    expect([...names].sort()).toEqual(['$autocapture', '$pageview', '$screen', 'Purchase', 'Song Played']);
    const pageview = events.find((e) => e.event === '$pageview')!;
    expect(pageview.properties).toMatchObject({ $host: 'shop.example.com', $current_url: expect.stringMatching(/^https:\/\/shop\.example\.com\//), $pathname: expect.any(String) });
    expect(events.some((e) => e.properties.$device_type === 'Mobile' && e.properties.$os === 'ios')).toBe(true);
    expect(events.some((e) => (e.properties.$set as Record<string, unknown>)['名前'] !== undefined)).toBe(true);
  });

  it('refuses --timezone: Amplitude times are UTC', async () => {
    const target = stagingIn(tempDir());
    const result = await runCli(['export-source', '--from', 'amplitude', ZIP, '--timezone', 'Europe/Paris', '--staging', target.staging], { cwd: target.dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--timezone does not apply to --from amplitude');
  });
});
