/**
 * `export-source --from mixpanel-api` (the built CLI) against a stand-in of Mixpanel's raw
 * export API: one request per day, staged as `--from mixpanel` stages the same lines; 429s,
 * 5xx and connections dropped mid-body retried; bad credentials stop at once; a failed day is
 * the only one a re-run fetches; a re-run of a finished window fetches nothing; kill -9 in
 * the middle of a day, then a re-run, stages every event once.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { basicAuth } from '../helpers/export-api-standin.js';
import { exportSource, rejectsOf, stagingIn, statusOf } from '../helpers/export-source.js';
import { startMixpanelStandin, type MixpanelRecord, type MixpanelStandin } from '../helpers/mixpanel-api-standin.js';
import { fetchApi, MIXPANEL_SECRET, mixpanelTarget, startFetch, type ApiTarget } from '../helpers/source-api-cli.js';
import { runCli } from '../helpers/run-cli.js';
import { readStagedEvents } from '../helpers/staged-events.js';
import { personOfDistinctId } from '../../src/sandbox/capture/ingested-data.js';
import { useSandbox } from '../helpers/sandbox.js';
import { FAST } from '../helpers/staging.js';
import { writeVerifyConfig } from '../helpers/verify-config.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const sandboxAt = useSandbox();
const PROJECT = '3141592';
const USER = 'migrate.a1b2c3.mp-service-account';
const DAYS = ['2025-03-01', '2025-03-02', '2025-03-03', '2025-03-04'];
const PER_DAY = 12;

function dayEvents(day: string, n = PER_DAY): MixpanelRecord[] {
  const base = Date.parse(`${day}T00:00:00Z`);
  return Array.from({ length: n }, (_, i) => ({
    event: i % 3 === 0 ? '$mp_web_page_view' : 'Item Purchased',
    properties: { time: base + i * 7_200_000 + 250, distinct_id: `user_${i % 5}`, $insert_id: `${day}-${i}`, $current_url: 'https://shop.example.com/p', mp_country_code: 'FR', total: i },
  }));
}

const standins: MixpanelStandin[] = [];
afterEach(async () => {
  for (const s of standins.splice(0)) await s.close();
});

async function setup(days: Record<string, Array<MixpanelRecord | string>> = Object.fromEntries(DAYS.map((d) => [d, dayEvents(d)]))) {
  const standin = await startMixpanelStandin({ projectId: PROJECT, username: USER, secret: MIXPANEL_SECRET, days });
  standins.push(standin);
  return { standin, target: mixpanelTarget(tempDir(), standin.url, PROJECT, USER) };
}

function json(result: { stdout: string }) {
  return JSON.parse(result.stdout);
}

async function fetchDays(target: ApiTarget, extra: string[] = [], start = DAYS[0]!, end = DAYS.at(-1)!, options: { ownProcess?: boolean } = {}) {
  return fetchApi(target, 'mixpanel-api', start, end, ['--json', '--api-concurrency', '1', ...extra], options);
}

describe('export-source --from mixpanel-api', () => {
  it('fetches one day per request and stages it exactly as --from mixpanel stages the same lines', async () => {
    const { standin, target } = await setup();
    const result = await fetchDays(target);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const summary = json(result);
    expect(summary).toMatchObject({ source: `mixpanel-api:${PROJECT}`, window: { start: DAYS[0], end: DAYS[3], cappedFrom: null }, ledger: { done: 4, empty: 0, failed: 0, pending: 0 } });
    expect(summary.totals).toMatchObject({ rowsRead: 4 * PER_DAY, staged: 4 * PER_DAY, rejected: 0 });
    expect(standin.days()).toEqual(DAYS);
    for (const request of standin.requests) {
      expect(request.query).toEqual({ from_date: request.query.from_date, to_date: request.query.from_date, project_id: PROJECT, time_in_ms: 'true' });
      expect(request.acceptEncoding).toContain('gzip');
    }

    // The same lines, downloaded by hand and staged as a file, give the same events.
    const file = join(target.dir, 'day.jsonl');
    const day = await fetch(`${standin.url}/api/2.0/export?from_date=${DAYS[1]}&to_date=${DAYS[1]}&project_id=${PROJECT}&time_in_ms=true`, {
      headers: { authorization: basicAuth(USER, MIXPANEL_SECRET) },
    });
    writeFileSync(file, await day.text());
    const other = stagingIn(tempDir());
    await exportSource(other, ['--from', 'mixpanel', file]);
    // Each staging file has its own $import_run; everything else is the same.
    const strip = ({ source: _s, line: _l, properties: { $import_run: _r, ...properties }, ...event }: ReturnType<typeof readStagedEvents>[number]) => ({ ...event, properties });
    const fromApi = readStagedEvents(target.staging)
      .filter((e) => e.source === `mixpanel-api:${PROJECT}:${DAYS[1]}`)
      .map(strip);
    const fromFile = readStagedEvents(other.staging).map(strip);
    const byUuid = (a: { uuid: string }, b: { uuid: string }) => a.uuid.localeCompare(b.uuid);
    expect(fromApi.sort(byUuid)).toEqual(fromFile.sort(byUuid));
    expect(fromApi.some((e) => !e.timestamp.endsWith('.000Z'))).toBe(true);
  });

  it('fetches nothing again once every day is done; status shows the ranges', async () => {
    const { standin, target } = await setup();
    expect((await fetchDays(target)).code).toBe(0);
    const again = await fetchDays(target);
    expect(again.code).toBe(0);
    expect(json(again)).toMatchObject({ alreadyDone: { ranges: 4, units: 4 }, ranges: [], requests: 0 });
    expect(standin.days()).toEqual(DAYS);

    const text = await fetchApi(target, 'mixpanel-api', DAYS[0]!, DAYS[3]!);
    expect(text.stdout).toContain('skipped 4 ranges already done (4 days): not fetched again');
    expect(text.stdout).toContain('nothing to fetch');

    // A wider window fetches only the new days; days staged before count as known.
    const wider = await fetchDays(target, [], '2025-02-28', '2025-03-05');
    expect(json(wider)).toMatchObject({ alreadyDone: { ranges: 4 }, ledger: { done: 4, empty: 2 } });
    expect(standin.days().slice(4)).toEqual(['2025-02-28', '2025-03-05']);

    const status = await statusOf(stagingIn(target.dir));
    expect(status.ranges).toEqual([
      expect.objectContaining({
        source: `mixpanel-api:${PROJECT}`,
        counts: { pending: 0, fetching: 0, done: 4, empty: 2, failed: 0 },
        spans: [
          expect.objectContaining({ status: 'empty', start: '2025-02-28', end: '2025-02-28' }),
          expect.objectContaining({ status: 'done', start: '2025-03-01', end: '2025-03-04', ranges: 4, rowsRead: 4 * PER_DAY }),
          expect.objectContaining({ status: 'empty', start: '2025-03-05', end: '2025-03-05' }),
        ],
      }),
    ]);
    expect(status.events.count).toBe(4 * PER_DAY);
  });

  it('retries 429 (honouring Retry-After), 5xx and a connection dropped mid-body; every event is staged once', async () => {
    const { standin, target } = await setup();
    standin.inject(DAYS[1]!, { type: 'answer', status: 429, headers: { 'retry-after': '0' }, body: JSON.stringify({ request: '/api/2.0/export', error: 'rate limit exceeded' }) });
    standin.inject(DAYS[1]!, { type: 'answer', status: 503, body: 'upstream unavailable' });
    standin.inject(DAYS[2]!, { type: 'drop-mid-body' }, { type: 'drop-mid-body' });
    const result = await fetchDays(target);
    expect(result.code).toBe(0);
    const summary = json(result);
    expect(summary.ranges.map((r: { start: string; requests: number; status: string }) => [r.start, r.requests, r.status])).toEqual([
      [DAYS[0], 1, 'done'],
      [DAYS[1], 3, 'done'],
      [DAYS[2], 3, 'done'],
      [DAYS[3], 1, 'done'],
    ]);
    expect(summary.totals).toMatchObject({ rowsRead: 4 * PER_DAY, staged: 4 * PER_DAY, alreadyStaged: 0 });
    const events = readStagedEvents(target.staging);
    expect(new Set(events.map((e) => e.uuid)).size).toBe(4 * PER_DAY);

    const text = await fetchApi(target, 'mixpanel-api', DAYS[0]!, DAYS[3]!);
    expect(text.code).toBe(0);
  });

  it('fetches three days at once by default, staging them one at a time', async () => {
    const days = ['2025-03-01', '2025-03-02', '2025-03-03', '2025-03-04', '2025-03-05', '2025-03-06', '2025-03-07'];
    const { standin, target } = await setup(Object.fromEntries(days.map((d) => [d, dayEvents(d)])));
    standin.inject(days[4]!, { type: 'drop-mid-body' });
    const result = await fetchApi(target, 'mixpanel-api', days[0]!, days[6]!, ['--json']);
    expect(result.code).toBe(0);
    expect(json(result).ledger).toEqual({ done: 7, empty: 0, failed: 0, pending: 0 });
    expect([...standin.days()].sort()).toEqual([...days, days[4]!].sort());
    const events = readStagedEvents(target.staging);
    expect(events).toHaveLength(7 * PER_DAY);
    expect(new Set(events.map((e) => e.uuid)).size).toBe(7 * PER_DAY);
  });

  it('names the day and the line of each rejected row', async () => {
    const days: Record<string, Array<MixpanelRecord | string>> = Object.fromEntries(DAYS.map((d) => [d, dayEvents(d, 3)]));
    days[DAYS[2]!] = [...dayEvents(DAYS[2]!, 2), '{"event": "broken", ', JSON.stringify({ event: 'No time', properties: { distinct_id: 'u', $insert_id: 'x' } })];
    const { target } = await setup(days);
    const result = await fetchDays(target, [], DAYS[0], DAYS[3]);
    expect(result.code).toBe(0);
    const rejects = await rejectsOf(stagingIn(target.dir));
    expect(rejects.map((r) => [r.path, r.line, r.reason])).toEqual([
      [`mixpanel-api:${PROJECT}:${DAYS[2]}`, 3, 'bad_json'],
      [`mixpanel-api:${PROJECT}:${DAYS[2]}`, 4, 'missing_timestamp'],
    ]);
    const text = await fetchApi(target, 'mixpanel-api', DAYS[2]!, DAYS[2]!, ['--staging', join(target.dir, 'other.db')]);
    expect(text.stdout).toContain(`mixpanel-api:${PROJECT}:${DAYS[2]}:3 `);
  });

  it('stops at once when the credentials are refused, naming the settings; nothing is marked failed', async () => {
    const { standin, target } = await setup();
    const refused = await fetchApi({ ...target, env: { MIXPANEL_SECRET: 'not-the-secret' } }, 'mixpanel-api', DAYS[0]!, DAYS[3]!, ['--api-concurrency', '1']);
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain('Mixpanel refused the credentials (HTTP 401: Invalid service account credentials)');
    expect(refused.stderr).toContain('sources.mixpanel.username and sources.mixpanel.secretEnv (MIXPANEL_SECRET)');
    expect(standin.requests.filter((r) => !r.authorized)).toHaveLength(1);
    const status = await statusOf(stagingIn(target.dir));
    expect(status.ranges[0].counts).toMatchObject({ done: 0, failed: 0, pending: 4 });
    expect((await fetchDays(target)).code).toBe(0);
  });

  it('a day still failing when its retry budget is spent fails alone (exit 8); a re-run fetches only that day', async () => {
    const { standin, target } = await setup();
    // More failures than a 12 ms budget has attempts for, whatever the jitter.
    standin.inject(DAYS[1]!, ...Array.from({ length: 30 }, () => ({ type: 'answer' as const, status: 500, body: JSON.stringify({ error: 'internal error' }) })));
    const first = await fetchDays(target, ['--retry-budget-ms', '12']);
    expect(first.code).toBe(8);
    expect(first.stderr).toContain('1 range of 2025-03-01 to 2025-03-04 failed');
    expect(json(first).ledger).toEqual({ done: 3, empty: 0, failed: 1, pending: 0 });
    const status = await runStatus(target);
    expect(status).toContain(`failed ${DAYS[1]} after`);
    expect(status).toContain('Mixpanel kept failing for 2025-03-02 (HTTP 500: internal error)');

    standin.clearFaults();
    const requestsBefore = standin.days().length;
    const again = await fetchDays(target);
    expect(again.code).toBe(0);
    expect(standin.days().slice(requestsBefore)).toEqual([DAYS[1]]);
    expect(json(again).ledger).toEqual({ done: 4, empty: 0, failed: 0, pending: 0 });
  });

  it('retries a 200 that is not a clean export (an HTML page, an error object, a body without length cut mid-line); a day answered so to the end fails, never done', async () => {
    const { standin, target } = await setup();
    const html = '<!DOCTYPE html>\n<html><head><title>Sign in - Corporate Proxy</title></head><body>Please log in</body></html>\n';
    standin.inject(DAYS[0]!, { type: 'answer', status: 200, headers: { 'content-type': 'text/html' }, body: html });
    standin.inject(DAYS[1]!, { type: 'answer', status: 200, headers: { 'content-type': 'application/json' }, body: '{"error": "Internal error, please retry"}' });
    standin.inject(DAYS[2]!, { type: 'unframed-cut' });
    const result = await fetchDays(target);
    expect(result.code, result.stderr).toBe(0);
    const summary = json(result);
    expect(summary.ranges.map((r: { start: string; requests: number; status: string }) => [r.start, r.requests, r.status])).toEqual([
      [DAYS[0], 2, 'done'],
      [DAYS[1], 2, 'done'],
      [DAYS[2], 2, 'done'],
      [DAYS[3], 1, 'done'],
    ]);
    expect(summary.totals).toMatchObject({ rowsRead: 4 * PER_DAY, staged: 4 * PER_DAY, rejected: 0 });

    // Answered so until the retry budget is spent: the days fail with what was wrong, nothing of them staged, and a re-run fetches them.
    const other = mixpanelTarget(tempDir(), standin.url, PROJECT, USER);
    for (let i = 0; i < 30; i++) {
      standin.inject(DAYS[0]!, { type: 'answer', status: 200, headers: { 'content-type': 'text/html' }, body: html });
      standin.inject(DAYS[1]!, { type: 'answer', status: 200, body: '{"error": "Internal error, please retry"}' });
      standin.inject(DAYS[2]!, { type: 'unframed-cut' });
    }
    const failing = await fetchDays(other, ['--retry-budget-ms', '12']);
    expect(failing.code).toBe(8);
    expect(json(failing).ledger).toEqual({ done: 1, empty: 0, failed: 3, pending: 0 });
    const errors = json(failing)
      .ranges.filter((r: { status: string }) => r.status === 'failed')
      .map((r: { error: string }) => r.error);
    expect(errors).toEqual([
      expect.stringContaining('an HTML page ("<!DOCTYPE html>'),
      expect.stringContaining('an error in place of the data: "Internal error, please retry"'),
      expect.stringMatching(/the answer ends in the middle of a line, after \d+ bytes: cut short/),
    ]);
    expect(readStagedEvents(other.staging).filter((e) => e.source !== '')).toHaveLength(PER_DAY);
    standin.clearFaults();
    const again = await fetchDays(other);
    expect(again.code).toBe(0);
    expect(json(again).ledger).toEqual({ done: 4, empty: 0, failed: 0, pending: 0 });
    expect(readStagedEvents(other.staging).filter((e) => e.source !== '')).toHaveLength(4 * PER_DAY);
  });

  it('a Content-Length longer than the body, then a closed connection, is a failed attempt: retried, never a crash or a range left fetching', async () => {
    // Days large enough that the body arrives in many pieces while the spool file is written.
    const big = Object.fromEntries(DAYS.map((d) => [d, dayEvents(d, 2000)]));
    const { standin, target } = await setup(big);
    standin.inject(DAYS[0]!, { type: 'long-length' });
    for (const day of DAYS.slice(1)) standin.inject(day, { type: 'close-after' });
    const result = await fetchDays(target, [], DAYS[0], DAYS[3]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(json(result).ranges.map((r: { start: string; requests: number; status: string }) => [r.start, r.requests, r.status])).toEqual([
      [DAYS[0], 2, 'done'],
      [DAYS[1], 1, 'done'],
      [DAYS[2], 1, 'done'],
      [DAYS[3], 1, 'done'],
    ]);
    expect(
      new Set(
        readStagedEvents(target.staging)
          .filter((e) => e.source !== '')
          .map((e) => e.uuid),
      ).size,
    ).toBe(4 * 2000);

    const other = mixpanelTarget(tempDir(), standin.url, PROJECT, USER);
    standin.inject(DAYS[1]!, ...Array.from({ length: 30 }, () => ({ type: 'long-length' as const })));
    const failing = await fetchDays(other, ['--retry-budget-ms', '12'], DAYS[1], DAYS[1]);
    expect(failing.code).toBe(8);
    expect(failing.stderr).not.toMatch(/AssertionError|unexpected failure|\n\s+at /);
    expect(json(failing).ledger).toEqual({ done: 0, empty: 0, failed: 1, pending: 0 });
    expect(existsSync(`${other.staging}.fetch`)).toBe(false);
    expect((await statusOf(stagingIn(other.dir))).ranges[0].counts).toMatchObject({ failed: 1, fetching: 0 });
  });

  it('an error escaping to the process mid-run ends it in words (exit 8), never a stack trace; the days not done are fetched by the next run', async () => {
    const { standin, target } = await setup();
    // A transform that lets an error escape from a handler after it returned (transforms run on worker threads: the worker dies of it).
    const module = join(target.dir, 'escape.mjs');
    writeFileSync(module, "let thrown = false;\nexport default (e) => {\n  if (!thrown) { thrown = true; setImmediate(() => { throw new Error('escaped from a handler'); }); }\n  return e;\n};\n");
    // A process of its own: the error escapes to the process (in this one, it would be the test runner's).
    const result = await fetchDays(target, ['--transform', module], DAYS[0], DAYS.at(-1), { ownProcess: true });
    expect(result.code).toBe(8);
    expect(result.stderr).toContain('error: the fetch stopped on an unexpected failure (Error: escaped from a handler); the ranges being fetched were undone, nothing of them is staged');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(`${target.staging}.fetch`)).toBe(false);
    const counts = (await statusOf(stagingIn(target.dir))).ranges[0].counts;
    expect(counts).toMatchObject({ fetching: 0, failed: 0 });
    expect(counts.pending).toBeGreaterThan(0);

    const again = await fetchDays(target);
    expect(again.code, again.stderr).toBe(0);
    expect(json(again).ledger).toEqual({ done: 4, empty: 0, failed: 0, pending: 0 });
    // A day whose worker died was undone with nothing staged, and fetched again by the next run: each day at most twice.
    for (const day of DAYS) expect(standin.days().filter((d) => d === day).length).toBeLessThanOrEqual(2);
    expect(standin.days().length).toBeGreaterThan(DAYS.length);
  });

  it('stages identity links that land like every event: no person placed at the importing machine, verify complete', async () => {
    // Visitors on $device:<id> who log in later the same day: each link is an $identify the passes derive.
    const visits = (day: string): MixpanelRecord[] =>
      dayEvents(day, 10).map((e, i) => {
        const device = `dev-${day}-${i % 5}`;
        return { ...e, properties: { ...e.properties, distinct_id: i < 5 ? `$device:${device}` : `user_${day}_${i % 5}`, $device_id: device, ...(i < 5 ? {} : { $user_id: `user_${day}_${i % 5}` }) } };
      });
    const { target } = await setup(Object.fromEntries(DAYS.map((d) => [d, visits(d)])));
    const staged = await fetchDays(target);
    expect(staged.code, staged.stderr).toBe(0);
    expect(json(staged).passes.identity).toMatchObject({ staged: 4 * 5 });

    const sandbox = await sandboxAt();
    const projects = JSON.parse(readFileSync(writeVerifyConfig(target.dir, sandbox), 'utf8'));
    writeFileSync(target.config, JSON.stringify({ ...JSON.parse(readFileSync(target.config, 'utf8')), ...projects }));
    const cli = (args: string[]) => runCli([...args, '--staging', target.staging, '--config', target.config], { cwd: target.dir });
    const imported = await cli(['import', '--project', 'test', ...FAST]);
    expect(imported.code, imported.stderr).toBe(0);
    for (const day of DAYS) {
      for (let i = 0; i < 5; i++) {
        const person = personOfDistinctId(sandbox.store, 1, `user_${day}_${i}`);
        expect(person?.distinctIds).toContain(`$device:dev-${day}-${i}`);
        expect(person?.properties).not.toHaveProperty('$initial_geoip_city_name');
      }
    }
    const verified = await cli(['verify', '--project', 'test']);
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    expect(verified.stdout).toContain(`all 4 days complete: ${4 * 15} of ${4 * 15} delivered events landed`);
  });

  it('keeps the secret out of stdout, stderr, the staging file and the range ledger', async () => {
    const { standin, target } = await setup();
    standin.inject(DAYS[0]!, { type: 'answer', status: 500, body: `echo ${MIXPANEL_SECRET}` });
    standin.inject(DAYS[1]!, { type: 'answer', status: 400, body: JSON.stringify({ error: `bad request with ${MIXPANEL_SECRET}` }) });
    const result = await fetchDays(target);
    expect(result.code).toBe(8);
    const encoded = Buffer.from(`${USER}:${MIXPANEL_SECRET}`).toString('base64');
    for (const text of [result.stdout, result.stderr, await runStatus(target), readFileSync(target.staging).toString('latin1')]) {
      expect(text).not.toContain(MIXPANEL_SECRET);
      expect(text).not.toContain(encoded);
    }
    expect(result.stderr).toContain('[redacted]');
  });

  it('after kill -9 in the middle of a day, a re-run refetches that day only and stages every event once', async () => {
    const { standin, target } = await setup();
    standin.inject(DAYS[2]!, { type: 'stall' });
    const { child, done } = startFetch(target, 'mixpanel-api', DAYS[0]!, DAYS[3]!, ['--api-concurrency', '1']);
    // The range is recorded as being fetched before its request goes out; half its answer is on the wire.
    await standin.stalled();
    child.kill('SIGKILL');
    expect((await done).signal).toBe('SIGKILL');
    standin.release();

    const again = await fetchDays(target);
    expect(again.code).toBe(0);
    expect(json(again).recovered).toEqual([`mixpanel-api:${PROJECT}:${DAYS[2]}`]);
    expect(standin.days()).toEqual([DAYS[0], DAYS[1], DAYS[2], DAYS[2], DAYS[3]]);
    const events = readStagedEvents(target.staging);
    expect(events).toHaveLength(4 * PER_DAY);
    expect(new Set(events.map((e) => e.uuid)).size).toBe(4 * PER_DAY);
  });
});

async function runStatus(target: ApiTarget): Promise<string> {
  return (await runCli(['status', '--staging', target.staging], { cwd: target.dir })).stdout;
}
