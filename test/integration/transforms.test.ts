/**
 * export-source --transform and the filters without code, through the built CLI: rows dropped,
 * changed and multiplied, throws and bad returns as rejects, skips counted by reason in the
 * summary, --json and status; a re-run stages nothing new; a changed transform or a narrower
 * filter is refused unless --replace-changed; worker threads and in-process give the same events.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exportSource, rejectsOf, stagingIn, statusOf, type Staging } from '../helpers/export-source.js';
import { startMixpanelStandin, type MixpanelStandin } from '../helpers/mixpanel-api-standin.js';
import { REPO_ROOT, runCli } from '../helpers/run-cli.js';
import { fetchApi, MIXPANEL_SECRET, mixpanelTarget } from '../helpers/source-api-cli.js';
import { readStagedEvents } from '../helpers/staged-events.js';
import { SAMPLE_CSV, stagedUuids } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();

/** The staged events without their source path and the keys the staging rules add to every row (one `$import_run` per staging file). */
function sourceEvents(staging: string) {
  return readStagedEvents(staging).map(({ source: _s, properties, ...e }) => {
    const { $geoip_disable: _g, $import_source: _i, $import_run: _r, ...own } = properties;
    return { ...e, properties: own };
  });
}

const EVENTS_CSV = [
  'event,distinct_id,timestamp,plan',
  'pageview,u1,2024-01-01T10:00:00Z,free', // 2: staged as $pageview, plan upper-cased
  'test_event,u2,2024-01-02T10:00:00Z,free', // 3: dropped by the transform
  'signed_up,u3,2024-01-03T10:00:00Z,pro', // 4: two events
  'purchase,u4,2023-12-31T23:59:59Z,pro', // 5: before --since
  'purchase,u5,2024-02-01T00:00:00Z,pro', // 6: at --until
  'noise,u6,2024-01-05T10:00:00Z,free', // 7: --skip-events
  'pageview,u7,2024-01-06T10:00:00Z,boom', // 8: the transform throws
  'pageview,u8,2024-01-07T10:00:00Z,bad', // 9: the transform returns an empty distinct_id
  '',
].join('\n');

// A marker the output must never show: the module's content is not printed anywhere.
const TRANSFORM = `// content marker: do-not-print-7c1e
export default function (event) {
  if (event.event.startsWith('test_')) return null;
  if (event.properties.plan === 'boom') throw new Error('plan boom is not known');
  if (event.properties.plan === 'bad') return { ...event, distinct_id: '' };
  event.properties.plan = event.properties.plan.toUpperCase();
  event.properties.from_line = event.source.line;
  if (event.event === 'signed_up') return [event, { ...event, event: 'trial_started' }];
  return event;
}
`;

const FILTERS = ['--skip-events', 'noise', '--since', '2024-01-01', '--until', '2024-02-01'];

function setup(): Staging & { csv: string; transform: string } {
  const target = stagingIn(tempDir());
  const csv = join(target.dir, 'events.csv');
  const transform = join(target.dir, 'strip-test.mjs');
  writeFileSync(csv, EVENTS_CSV);
  writeFileSync(transform, TRANSFORM);
  return { ...target, csv, transform };
}

function stage(target: Staging, args: string[]) {
  return runCli(['export-source', '--staging', target.staging, ...args], { cwd: target.dir });
}

describe('export-source --transform and filters', () => {
  it('drops, changes and multiplies events; throws and bad returns are rejects; skips are counted by reason', async () => {
    const t = setup();
    const summary = await exportSource(t, ['--from', 'csv', t.csv, '--transform', t.transform, ...FILTERS]);
    expect(summary.totals).toMatchObject({ rowsRead: 8, added: 1, staged: 3, skipped: 4, rejected: 2 });
    expect(summary.totals.skippedByReason).toEqual({ 'transform strip-test.mjs': 1, '--since': 1, '--until': 1, '--skip-events': 1 });
    expect(summary.totals.rejectedByReason).toEqual({ transform_error: 1, transform_invalid: 1 });

    const staged = sourceEvents(t.staging).map((e) => [e.line, e.event, e.distinct_id, e.properties]);
    expect(staged).toEqual([
      [2, '$pageview', 'u1', { plan: 'FREE', from_line: 2 }],
      [4, 'signed_up', 'u3', { plan: 'PRO', from_line: 4 }],
      [4, 'trial_started', 'u3', { plan: 'PRO', from_line: 4 }],
    ]);
    const rejects = await rejectsOf(t);
    expect(rejects.map((r) => [r.line, r.reason, r.field, r.message, r.raw])).toEqual([
      [8, 'transform_error', '', 'transform strip-test.mjs threw: plan boom is not known', 'pageview,u7,2024-01-06T10:00:00Z,boom'],
      [
        9,
        'transform_invalid',
        'distinct_id',
        'transform strip-test.mjs returned an event the rules reject: distinct_id is missing or empty (missing_distinct_id)',
        'pageview,u8,2024-01-07T10:00:00Z,bad',
      ],
    ]);

    const report = await statusOf(t);
    expect(report.sources[0]).toMatchObject({ rowsRead: 8, added: 1, skipped: 4, skippedBy: summary.totals.skippedByReason });
    expect(report.sourceTotals.skippedBy).toEqual(summary.totals.skippedByReason);
  });

  it('says it in the summary and in status, and never prints the module', async () => {
    const t = setup();
    const result = await stage(t, ['--from', 'csv', t.csv, '--transform', t.transform, ...FILTERS]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('8 rows read (+1 event from the transform): 3 new, 0 already staged, 0 identical, 4 skipped, 2 rejected');
    const skippedLine = result.stdout.split('\n').find((l) => l.includes('4 skipped:'))!;
    for (const part of ['1 dropped by transform strip-test.mjs', '1 before --since', '1 at or after --until', '1 by --skip-events']) expect(skippedLine).toContain(part);
    const status = await runCli(['status', '--staging', t.staging], { cwd: t.dir });
    expect(status.stdout).toMatch(/ {2}skipped: .*1 dropped by transform strip-test\.mjs/);
    expect(status.stdout).toContain('1 event more than rows read: made by a transform');
    for (const text of [result.stdout, result.stderr, status.stdout, readFileSync(t.staging).toString('latin1')]) expect(text).not.toContain('do-not-print-7c1e');
  });

  it('a second run on the same inputs stages nothing new', async () => {
    const t = setup();
    const args = ['--from', 'csv', t.csv, '--transform', t.transform, ...FILTERS];
    const first = await exportSource(t, args);
    expect((await exportSource(t, args)).unchanged).toEqual([t.csv]);
    const again = await exportSource(t, [...args, '--reread']);
    expect(again.totals).toMatchObject({ rowsRead: 8, added: 1, staged: 0, alreadyStaged: 3, skipped: 4, rejected: 2 });
    expect(again.totals.skippedByReason).toEqual(first.totals.skippedByReason);
    expect(readStagedEvents(t.staging)).toHaveLength(3);
  });

  it('a changed transform is refused as a changed --timezone is, and staged with --replace-changed', async () => {
    const t = setup();
    await exportSource(t, ['--from', 'csv', t.csv, '--transform', t.transform]);
    writeFileSync(t.transform, TRANSFORM.replace("return [event, { ...event, event: 'trial_started' }]", 'return event'));
    const refused = await stage(t, ['--from', 'csv', t.csv, '--transform', t.transform]);
    expect(refused.code).toBe(6);
    expect(refused.stderr).toMatch(/was staged earlier with other options that shape its events:\n {2}--transform: was transform sha256:[0-9a-f]{12}\.\.\., now transform sha256:[0-9a-f]{12}\.\.\./);
    expect(refused.stderr).toContain('pass --replace-changed');
    expect(refused.stderr).not.toContain('do-not-print-7c1e');

    const replaced = await exportSource(t, ['--from', 'csv', t.csv, '--transform', t.transform, '--replace-changed']);
    expect(replaced.files[0].withdrawn).toEqual([expect.objectContaining({ reason: 'gone', count: 1 })]);
    expect(readStagedEvents(t.staging).map((e) => e.event)).not.toContain('trial_started');
  });

  it('a narrower filter is refused; a wider one stages only the rows it lets in', async () => {
    const t = setup();
    await exportSource(t, ['--from', 'csv', t.csv, ...FILTERS]);
    const narrower = await stage(t, ['--from', 'csv', t.csv, '--skip-events', 'noise', '--since', '2024-01-02', '--until', '2024-02-01']);
    expect(narrower.code).toBe(6);
    expect(narrower.stderr).toContain('--since: was 2024-01-01, now 2024-01-02');
    const wider = await exportSource(t, ['--from', 'csv', t.csv, '--skip-events', 'noise', '--since', '2024-01-01']);
    expect(wider.totals).toMatchObject({ staged: 1, skipped: 2, skippedByReason: { '--since': 1, '--skip-events': 1 } });
  });

  it('a transform that leaves events as they are stages them exactly as without one', async () => {
    const t = setup();
    const identity = join(t.dir, 'identity.mjs');
    writeFileSync(identity, 'export default (event) => event;\n');
    await exportSource(t, ['--from', 'csv', SAMPLE_CSV, '--transform', identity]);
    const plain = stagingIn(tempDir());
    await exportSource(plain, ['--from', 'csv', SAMPLE_CSV]);
    expect(sourceEvents(t.staging)).toEqual(sourceEvents(plain.staging));
  });

  it('a transform that rejects every row achieves nothing: exit 3', async () => {
    const t = setup();
    const throwing = join(t.dir, 'throw.mjs');
    writeFileSync(throwing, "export default () => { throw new Error('not today'); };\n");
    const result = await stage(t, ['--from', 'csv', t.csv, '--transform', throwing]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('nothing was staged: every row read was rejected (8 transform_error)');
  });

  it('a filter that leaves out every row achieves nothing: exit 3, naming it', async () => {
    const t = setup();
    const result = await stage(t, ['--from', 'csv', t.csv, '--only-events', 'signup']);
    expect(result.code).toBe(3);
    expect(result.stdout).toContain('8 skipped: 8 not in --only-events');
    expect(result.stderr).toContain('nothing was staged: every row read was skipped (8 --only-events)');
  });

  it('worker threads and in-process staging give the same events, counts and rejects', async () => {
    const dirs: Staging[] = [];
    const results: string[] = [];
    const module = join(tempDir(), 'shape.mjs');
    writeFileSync(
      module,
      `const seen = Date.now(); // loaded once per thread: rows must not depend on it
export default function (e) {
  if (e.properties.$browser === 'Edge') return null;
  if (e.properties.session_id.endsWith('13')) throw new Error('unlucky ' + e.properties.session_id);
  e.properties.plan_upper = String(e.properties.plan).toUpperCase();
  return e.event === 'purchase' ? [e, { ...e, event: 'revenue', properties: { amount: 1 } }] : e;
}
`,
    );
    // About 1 MB in pieces of 64 Ki characters (a test hook, see stage-run.ts): sixteen pieces, so more than one thread reads rows.
    const generated = join(tempDir(), 'generated.csv');
    execFileSync(process.execPath, [join(REPO_ROOT, 'bench/generate-source.mjs'), generated, '6000']);
    for (const workers of ['0', '2']) {
      const target = stagingIn(tempDir());
      dirs.push(target);
      const csv = join(target.dir, 'generated.csv');
      copyFileSync(generated, csv);
      const summary = await exportSource(target, ['--from', 'csv', csv, '--transform', module, '--since', '2024-02-01', '--workers', workers], { MIGRATE_TEST_PIECE_CHARS: String(64 * 1024) });
      const rejects = (await rejectsOf(target)).map(({ path: _p, ...r }) => r);
      results.push(JSON.stringify([summary.totals, rejects, sourceEvents(target.staging)]));
    }
    expect(results[1]).toBe(results[0]);
    const [totals] = JSON.parse(results[0]!);
    expect(totals.added).toBeGreaterThan(400); // 628 of 6,000 rows
    expect(totals.skippedByReason['transform shape.mjs']).toBeGreaterThan(1000);
    expect(totals.skippedByReason['--since']).toBeGreaterThan(100);
    expect(totals.rejectedByReason.transform_error).toBeGreaterThan(0);
    expect(totals.rowsRead + totals.added).toBe(totals.staged + totals.alreadyStaged + totals.duplicates + totals.skipped + totals.rejected);
    expect(stagedUuids(dirs[0]!.staging)).toEqual(stagedUuids(dirs[1]!.staging));
  });
});

describe('a read killed part-way', () => {
  // Pieces of 64 Ki characters instead of 1 Mi (a test hook, see stage-run.ts): 3,000 rows make eight.
  const PIECES = { MIGRATE_TEST_PIECE_CHARS: String(64 * 1024) };
  it('resumes with its skips by reason and the events added, as one uninterrupted read counts them', async () => {
    const dir = tempDir();
    const csv = join(dir, 'generated.csv');
    execFileSync(process.execPath, [join(REPO_ROOT, 'bench/generate-source.mjs'), csv, '3000']);
    writeFileSync(join(dir, 'twice.mjs'), "export default (e) => (e.event === 'search' ? null : e.event === 'purchase' ? [e, { ...e, event: 'paid' }] : e);\n");
    const args = ['export-source', '--from', 'csv', csv, '--transform', join(dir, 'twice.mjs'), '--skip-events', 'signed_up', '--workers', '0'];
    const killed = await runCli([...args, '--staging', join(dir, 'm.db')], { cwd: dir, env: { ...PIECES, MIGRATE_TEST_KILL_AFTER_PIECES: '1' } });
    expect(killed.signal).toBe('SIGKILL');
    const resumed = await runCli([...args, '--staging', join(dir, 'm.db'), '--json'], { cwd: dir, env: PIECES });
    const whole = await runCli([...args, '--staging', join(dir, 'whole.db'), '--json'], { cwd: dir, env: PIECES });
    const [a, b] = [JSON.parse(resumed.stdout).files[0], JSON.parse(whole.stdout).files[0]];
    expect(a.resumedAtLine).toBeGreaterThan(1);
    for (const key of ['rowsRead', 'staged', 'skipped', 'added', 'skippedByReason']) expect([key, a[key]]).toEqual([key, b[key]]);
    expect(stagedUuids(join(dir, 'm.db'))).toEqual(stagedUuids(join(dir, 'whole.db')));
  });
});

describe('--transform and filters on a source API', () => {
  const standins: MixpanelStandin[] = [];
  afterEach(async () => {
    for (const s of standins.splice(0)) await s.close();
  });

  it('apply to the rows fetched from it, counted as for files', async () => {
    const days = Object.fromEntries(
      ['2025-03-01', '2025-03-02'].map((day) => [
        day,
        Array.from({ length: 6 }, (_, i) => ({
          event: i % 2 === 0 ? 'Page Viewed' : 'Item Purchased',
          properties: { time: Date.parse(`${day}T00:00:00Z`) + i * 3_600_000, distinct_id: `user_${i}`, $insert_id: `${day}-${i}`, total: i },
        })),
      ]),
    );
    const standin = await startMixpanelStandin({ projectId: '42', username: 'svc', secret: MIXPANEL_SECRET, days });
    standins.push(standin);
    const target = mixpanelTarget(tempDir(), standin.url, '42', 'svc');
    const module = join(target.dir, 'cents.mjs');
    writeFileSync(module, 'export default (e) => (e.properties.total === 0 ? null : { ...e, properties: { ...e.properties, cents: e.properties.total * 100 } });\n');
    const result = await fetchApi(target, 'mixpanel-api', '2025-03-01', '2025-03-02', ['--json', '--transform', module, '--skip-events', 'Page Viewed']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const totals = JSON.parse(result.stdout).totals;
    // Per day: 3 page views skipped; of 3 purchases (totals 1, 3, 5) none is 0.
    expect(totals).toMatchObject({ rowsRead: 12, staged: 6, skipped: 6, skippedByReason: { '--skip-events': 6 } });
    expect(readStagedEvents(target.staging).map((e) => e.properties.cents)).toEqual([100, 300, 500, 100, 300, 500]);
  });
});

describe('a module changed while a staging file exists', () => {
  it('is compared by content: the same content under another name is the same transform', async () => {
    const t = setup();
    await exportSource(t, ['--from', 'csv', t.csv, '--transform', t.transform]);
    const moved = join(t.dir, 'renamed.mjs');
    writeFileSync(moved, readFileSync(t.transform));
    const again = await exportSource(t, ['--from', 'csv', t.csv, '--transform', moved]);
    expect(again.totals).toMatchObject({ staged: 0, alreadyStaged: 6 });
    // Dropped rows are named after the module that dropped them.
    expect(again.totals.skippedByReason).toEqual({ 'transform renamed.mjs': 1 });
    appendFileSync(moved, '\n');
    expect((await stage(t, ['--from', 'csv', t.csv, '--transform', moved])).code).toBe(6);
  });
});
