/**
 * A person's events are processed in time order although several requests are in flight: a
 * chunk whose events share a person with an earlier chunk still unanswered waits for it, when
 * either carries person properties ($set, $set_once, $unset). The server in front of the sandbox
 * refuses the first request of the person's first day with a 429 and holds that answer until
 * the person's last day was answered (when the import sends it meanwhile), the way a
 * rate-limited request is retried while the next ones go through.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { eventsWithCurrentPerson, personOfDistinctId } from '../../src/sandbox/capture/ingested-data.js';
import type { RunningSandbox } from '../../src/sandbox/sandbox-server.js';
import { runCli } from '../helpers/run-cli.js';
import { useSandbox, withoutGeoip, writeSandboxConfig } from '../helpers/sandbox.js';
import { FAST } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const sandboxAt = useSandbox();

const line = (distinctId: string, timestamp: string, properties: Record<string, unknown> = {}): string => JSON.stringify({ event: 'viewed', distinct_id: distinctId, timestamp, properties });

/** One event a day, so one chunk each; f's days come first so that the pace opens up to several requests in flight. */
const EVENTS = [
  line('f', '2025-03-01T10:00:00Z'),
  line('f', '2025-03-02T10:00:00Z'),
  line('p', '2025-03-03T10:00:00Z', { $set: { plan: 'a' } }),
  line('p', '2025-03-04T10:00:00Z'),
  line('p', '2025-03-05T10:00:00Z', { $set: { plan: 'b' }, $set_once: { first: 'x' } }),
  line('f', '2025-03-06T10:00:00Z'),
];

/**
 * How long the refused request's answer waits for the last day's at most: an import that holds
 * the later days back never sends it meanwhile.
 */
const HOLD_MS = 200;

/** A server on 127.0.0.1 passing requests to the sandbox, but the first carrying `refuse` answered 429 once `until` was answered (or HOLD_MS passed). */
async function refusingProxy(sandbox: RunningSandbox, refuse: string, until: string): Promise<{ url: string; server: Server }> {
  let refused = false;
  let answered!: () => void;
  const untilAnswered = new Promise<void>((resolve) => (answered = resolve));
  const server = createServer((req, res) => {
    void (async () => {
      const parts: Buffer[] = [];
      for await (const part of req) parts.push(part as Buffer);
      const raw = Buffer.concat(parts);
      const text = /gzip/.test(String(req.headers['content-encoding'] ?? '')) ? gunzipSync(raw).toString() : raw.toString();
      if (!refused && text.includes(refuse)) {
        refused = true;
        await Promise.race([untilAnswered, new Promise((resolve) => setTimeout(resolve, HOLD_MS))]);
        res.writeHead(429, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 429, code: 'rate_limited', error: 'rate limited' }));
        return;
      }
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name))) as Record<string, string>;
      const answer = await fetch(sandbox.url + req.url, { method: req.method, headers, body: req.method === 'GET' || req.method === 'HEAD' ? undefined : raw });
      const body = Buffer.from(await answer.arrayBuffer());
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(body);
      if (text.includes(until)) answered();
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

describe('a person whose events carry person properties', () => {
  it('has its events processed in time order, and ends with the latest values, when a day is refused and retried while later days are in flight', async () => {
    const sandbox = await sandboxAt();
    const proxy = await refusingProxy(sandbox, '"plan":"a"', '"plan":"b"');
    servers.push(proxy.server);
    const dir = tempDir();
    const config = writeSandboxConfig(dir, { ...sandbox, url: proxy.url });
    writeFileSync(join(dir, 'events.jsonl'), EVENTS.join('\n') + '\n');
    const staging = ['--staging', join(dir, 'm.db')];
    const staged = await runCli(['export-source', '--from', 'jsonl', 'events.jsonl', ...staging, '--quiet'], { cwd: dir });
    expect(staged.code, staged.stderr).toBe(0);

    const imported = await runCli(['import', '--project', 'test', '--config', config, ...staging, ...FAST, '--max-rate', '1000000', '--concurrency', '4'], { cwd: dir });
    expect(imported.code, imported.stderr).toBe(0);

    const events = eventsWithCurrentPerson(sandbox.store, 1).filter((e) => e.distinctId === 'p');
    const snapshot = (day: string): Record<string, unknown> => withoutGeoip(events.find((e) => e.timestamp.startsWith(day))!.personProperties);
    // Processed in time order: each day sees the days before it and its own properties only.
    expect(events.map((e) => e.timestamp.slice(0, 10))).toEqual(['2025-03-03', '2025-03-04', '2025-03-05']);
    expect(snapshot('2025-03-03')).toEqual({ plan: 'a' });
    expect(snapshot('2025-03-04')).toEqual({ plan: 'a' });
    expect(snapshot('2025-03-05')).toEqual({ plan: 'b', first: 'x' });
    expect(withoutGeoip(personOfDistinctId(sandbox.store, 1, 'p')!.properties)).toEqual({ plan: 'b', first: 'x' });
  });
});
