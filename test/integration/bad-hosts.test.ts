/**
 * The built CLI against hosts that misbehave: a response counts as delivery only when it is
 * PostHog's acknowledgement, and every stop is clean (a message, a resume hint, no stack trace,
 * nothing recorded that did not happen) and no slower than the limits the user set.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/sqlite/database.js';
import { ACK, LOGIN_PAGE, useHostileHosts } from '../helpers/hostile-host.js';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { storedEvents, useSandbox, writeSandboxConfig } from '../helpers/sandbox.js';
import { useStagedTemplate, writeHostsConfig } from '../helpers/staged-template.js';
import { FAST, SAMPLE_EVENTS, deliveredCount, readStaging } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

function deadLetters(staging: string): number {
  return readStaging(staging, (db) => (db.prepare('SELECT count(*) AS n FROM dead_letters').get() as { n: number }).n);
}

function expectCleanStop(result: CliResult, code: number): void {
  expect(result.code, result.stderr).toBe(code);
  expect(result.stderr).not.toMatch(/^\s+at /m);
  expect(result.stderr).not.toContain('unexpected failure');
}

describe('hosts that are not PostHog', () => {
  const tempDir = useTempDir();
  const hostAt = useHostileHosts();
  const sandboxAt = useSandbox();
  const staged = useStagedTemplate();

  it.each<[string, { status: number; contentType?: string; body?: string }, RegExp]>([
    [
      'a web page with 200',
      { status: 200, contentType: 'text/html; charset=utf-8', body: LOGIN_PAGE },
      /answered HTTP 200 \(text\/html\): <!DOCTYPE html> <html><head><title>Sign in - Corporate Proxy/,
    ],
    ['an empty 200', { status: 200 }, /answered HTTP 200 \(\(no content type\)\): \(empty body\)/],
    ['other JSON with 200', { status: 200, contentType: 'application/json', body: '{"ok":true}' }, /answered HTTP 200 \(application\/json\): \{"ok":true\}/],
    ['a 204', { status: 204 }, /answered HTTP 204/],
  ])('%s: the run stops at the first answer, nothing delivered or dead-lettered', async (_name, answer, shown) => {
    const host = await hostAt(() => answer);
    const dir = tempDir();
    const staging = staged(dir);
    const config = writeHostsConfig(dir, { test: host.url });
    const result = await runCli(['import', '--project', 'test', '--skip-preflight', '--staging', staging, '--config', config, ...FAST], { cwd: dir });
    expectCleanStop(result, 5);
    expect(result.stderr).toContain(`error: ${host.url} is not a PostHog ingestion endpoint: ${host.url}/batch/ answered`);
    expect(result.stderr).toMatch(shown);
    expect(result.stderr).toContain('Check the host of project "test" in the config');
    expect(result.stderr).toContain('After fixing the host: migrate resume --project test\n');
    expect(host.requests).toBeLessThanOrEqual(4); // the chunks in flight when the first answer came
    expect(deliveredCount(staging, 'test')).toBe(0);
    expect(deadLetters(staging)).toBe(0);
  });

  it('a host that answers every POST with a 400 web page: stop at once, keep every event pending; the corrected host takes them', async () => {
    const host = await hostAt(() => ({ status: 400, contentType: 'text/html', body: '<html><body><h1>400 Bad Request</h1>nginx</body></html>' }));
    const sandbox = await sandboxAt();
    const dir = tempDir();
    const staging = staged(dir);
    const config = writeSandboxConfig(dir, sandbox, { test: { role: 'test', host: host.url, apiKey: 'phc_WrongHost0123456789abcdefghijkl' } });
    const refused = await runCli(['import', '--project', 'test', '--skip-preflight', '--staging', staging, '--config', config, '--retry-initial-ms', '1'], { cwd: dir });
    expectCleanStop(refused, 5);
    expect(refused.stderr).toContain(`answered HTTP 400 (text/html): <html><body><h1>400 Bad Request</h1>nginx</body></html>`);
    expect(refused.stderr.split('\n').length).toBeLessThan(10);
    expect(host.requests).toBeLessThanOrEqual(4);
    expect(deadLetters(staging)).toBe(0);
    expect(refused.stdout).toContain(`${SAMPLE_EVENTS.toLocaleString('en-US')} pending, 0 dead letters`);

    // Nothing was accepted, so the project may be pointed at the right host.
    writeSandboxConfig(dir, sandbox);
    const fixed = await runCli(['import', '--project', 'test', '--skip-preflight', '--staging', staging, '--config', config, ...FAST], { cwd: dir });
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(storedEvents(sandbox, 1)).toHaveLength(SAMPLE_EVENTS);
  });

  it('every event of a chunk refused with the same PostHog answer: the run stops and dead-letters nothing', async () => {
    const host = await hostAt(() => ({ status: 400, contentType: 'application/json', body: '{"status":400,"code":"invalid_event","error":"this project takes no events"}' }));
    const dir = tempDir();
    const staging = staged(dir);
    const config = writeHostsConfig(dir, { test: host.url });
    const result = await runCli(['import', '--project', 'test', '--skip-preflight', '--staging', staging, '--config', config, '--chunk-events', '16', '--concurrency', '1', ...FAST], { cwd: dir });
    expectCleanStop(result, 5);
    expect(result.stderr).toContain('every one of the 16 events of a chunk was refused with the same answer (HTTP 400: this project takes no events (invalid_event))');
    expect(result.stderr).toContain('Those events were not dead-lettered: 3,000 events still pending.');
    expect(host.requests).toBe(31); // one chunk bisected down to its 16 events
    expect(deadLetters(staging)).toBe(0);
    expect(deliveredCount(staging, 'test')).toBe(0);
  });

  it('a host that refuses bodies over a size with a 400 that says so: chunks are split, nothing is dead-lettered', async () => {
    const limit = 20_000;
    const host = await hostAt((batch) =>
      batch.bytes > limit
        ? { status: 400, contentType: 'application/json', body: `{"type":"validation_error","code":"invalid_input","detail":"Request body size exceeds the maximum of ${limit} bytes"}` }
        : ACK,
    );
    const dir = tempDir();
    const staging = staged(dir);
    const config = writeHostsConfig(dir, { test: host.url });
    const result = await runCli(['import', '--project', 'test', '--skip-preflight', '--staging', staging, '--config', config, ...FAST], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(host.acknowledged.size).toBe(SAMPLE_EVENTS);
    expect(deadLetters(staging)).toBe(0);
    expect(deliveredCount(staging, 'test')).toBe(SAMPLE_EVENTS);
  });

  it('a host that never answers: the run stops within the retry budget plus one request timeout', async () => {
    const host = await hostAt(() => 'hang');
    const dir = tempDir();
    const staging = staged(dir);
    const config = writeHostsConfig(dir, { test: host.url });
    const args = [
      'import',
      '--project',
      'test',
      '--skip-preflight',
      '--staging',
      staging,
      '--config',
      config,
      '--concurrency',
      '2',
      '--request-timeout-ms',
      '150',
      '--retry-budget-ms',
      '300',
      ...FAST,
      '--json',
    ];
    const result = await runCli(args, { cwd: dir });
    expectCleanStop(result, 5);
    expect(result.stderr).toMatch(/stopped, the server kept failing: still failing after \d attempts over \d+ ms \(retry budget 300 ms\); last: no answer within 150 ms/);
    // Attempts start within the budget: at most budget / timeout + 1 of them per chunk in flight.
    expect(host.requests).toBeLessThanOrEqual(2 * (300 / 150 + 1));
    expect(JSON.parse(result.stdout)).toMatchObject({ outcome: 'stopped', delivered: 0, pending: SAMPLE_EVENTS });
  });
});

describe('dead letters', () => {
  const tempDir = useTempDir();
  const sandboxAt = useSandbox();
  const staged = useStagedTemplate();

  it('a few bad events are kept as dead letters; past the allowance the run stops; --retry-dead-letters sends them after a fix', async () => {
    const sandbox = await sandboxAt();
    const dir = tempDir();
    const staging = staged(dir);
    const config = writeSandboxConfig(dir, sandbox);
    const bad = Array.from({ length: 40 }, (_, i) => 37 + i * 71);
    const db = openDatabase(staging);
    const update = db.prepare("UPDATE events SET distinct_id = '' WHERE seq = ?");
    for (const seq of bad) update.run(seq);
    db.close();
    const base = ['--staging', staging, '--config', config, ...FAST];

    // 40 refused events are more than the allowance of max(10, 1% of 3,000) = 30.
    const stopped = await runCli(['import', '--project', 'test', '--skip-preflight', '--max-dead-letters', '10', '--concurrency', '1', ...base], { cwd: dir });
    expectCleanStop(stopped, 5);
    expect(stopped.stderr).toContain('the server refused more than 30 events of this run one by one (the last: HTTP 400: event submitted without a distinct_id (missing_distinct_id))');
    expect(deadLetters(staging)).toBeLessThanOrEqual(30);

    // Within the default allowance (100) they are kept, and the hint points at them.
    const kept = await runCli(['import', '--project', 'test', '--skip-preflight', ...base.filter((a) => a !== '--quiet')], { cwd: dir });
    expect(kept.code, kept.stderr).toBe(0);
    expect(kept.stderr.match(/dead letter: event/g)?.length).toBe(10); // named one by one up to 10, then counted
    expect(kept.stdout).toContain('Next: look at the dead letters (`migrate status`); once their cause is fixed, send them again: migrate import --project test --retry-dead-letters');
    expect(deadLetters(staging)).toBe(40);
    expect(storedEvents(sandbox, 1)).toHaveLength(SAMPLE_EVENTS - 40);

    const fix = openDatabase(staging);
    fix.prepare("UPDATE events SET distinct_id = 'fixed_' || seq WHERE distinct_id = ''").run();
    fix.close();
    const retried = await runCli(['import', '--project', 'test', '--skip-preflight', '--retry-dead-letters', ...base], { cwd: dir });
    expect(retried.code, retried.stderr).toBe(0);
    expect(retried.stdout).toContain('40 events delivered');
    expect(retried.stdout).toContain('Next: migrate import --project prod');
    expect(deadLetters(staging)).toBe(0);
    expect(new Set(storedEvents(sandbox, 1).map((e) => e.uuid)).size).toBe(SAMPLE_EVENTS);
    const released = readStaging(staging, (db) => db.prepare('SELECT count(*) AS n, min(reason) AS reason, min(released_by_run) AS run FROM released_dead_letters').get());
    const lastRun = readStaging(staging, (db) => db.prepare('SELECT max(id) AS id, max(dead_letters_released) AS n FROM import_runs').get()) as { id: number; n: number };
    expect(released).toEqual({ n: 40, reason: 'retry', run: lastRun.id });
    expect(lastRun.n).toBe(40);
  });
});

describe('a host that takes bodies up to 64 KiB', () => {
  const tempDir = useTempDir();
  const sandboxAt = useSandbox();

  it('sends later chunks at the size that fitted: at most 25% of requests wasted', async () => {
    const sandbox = await sandboxAt({ capture: { maxBodyBytes: 64 * 1024, countOnly: true } });
    const dir = tempDir();
    const rows = ['event,distinct_id,timestamp,properties'];
    const pad = 'x'.repeat(180);
    for (let i = 0; i < 20_000; i++) {
      const at = new Date(Date.UTC(2025, 8, 1) + i * 4000).toISOString();
      rows.push(`page_view,user_${i % 997},${at},"{""path"":""/p/${i}"",""pad"":""${pad}""}"`);
    }
    const csv = join(dir, 'events.csv');
    writeFileSync(csv, rows.join('\n'));
    const staging = join(dir, 'migration.db');
    expect((await runCli(['export-source', '--from', 'csv', csv, '--staging', staging, '--quiet'], { cwd: dir })).code).toBe(0);
    const config = writeSandboxConfig(dir, sandbox);
    const result = await runCli(['import', '--project', 'test', '--skip-preflight', '--staging', staging, '--config', config, ...FAST], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    const answers = sandbox.capture.stats.answers;
    const wasted = answers['413'] ?? 0;
    const total = sandbox.capture.stats.requests;
    expect(answers['200']).toBeGreaterThan(80);
    expect(wasted / total).toBeLessThanOrEqual(0.25);
    expect(deliveredCount(staging, 'test')).toBe(20_000);
    console.log(`64 KiB host: ${total} requests, ${answers['200']} accepted, ${wasted} answered 413 (${Math.round((wasted * 100) / total)}% wasted)`);
  });
});
