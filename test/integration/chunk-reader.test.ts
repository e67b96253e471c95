/**
 * The chunk reader as the CLI runs it: the built module (dist/, so its worker file exists)
 * reading a real staging file on a worker thread gives exactly the chunks read in-process.
 */
import { chunkPersons, personHash } from '../../src/delivery/chunk-persons.js';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { chunkStream } from '../../src/delivery/chunk-stream.js';
import type { Chunk, ChunkLimits } from '../../src/delivery/chunker.js';
import { DEFAULT_SEND_ORDER } from '../../src/delivery/send-order.js';
import { batchBody } from '../../src/delivery/event-encoding.js';
import type { StagedEvent } from '../../src/events/staged-event.js';
import { PendingEvents } from '../../src/staging/delivery-store.js';
import { EventWriter } from '../../src/staging/event-writer.js';
import { beginRead, finishRead } from '../../src/staging/source-reads.js';
import { StagingStore } from '../../src/staging/staging-store.js';
import { REPO_ROOT } from '../helpers/run-cli.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { uuidBytes } from '../../src/events/stable-uuid.js';

type ChunkReader = typeof import('../../src/import/chunk-reader.js');
const built = join(REPO_ROOT, 'dist/import/chunk-reader.js');
const { readChunksOnWorker } = (await import(built)) as ChunkReader;

const T0 = Date.UTC(2024, 0, 1);
const LIMITS: ChunkLimits = { maxEvents: 40, maxBytes: 4096, overheadBytes: 60 };

function stagedFile(dir: string, count: number): string {
  return stagedEvents(
    dir,
    Array.from({ length: count }, (_, i) => ({
      uuid: uuidBytes(`01900000-0000-7000-8000-${String(i + 1).padStart(12, '0')}`),
      kind: i % 50 === 0 ? 1 : 0,
      event: i % 3 === 0 ? 'pageview' : 'clicked ü',
      distinctId: `user_${i % 17}`,
      timestampMs: T0 + (i % 400) * 3_600_000, // across 17 days, out of staging order
      propertiesJson: `{"i":${i},"s":"${'x'.repeat(i % 90)}"}`,
    })),
  );
}

function stagedEvents(dir: string, events: StagedEvent[]): string {
  const path = join(dir, 'm.db');
  const store = StagingStore.open(path);
  const count = events.length;
  const readId = beginRead(store, { path: '/src.csv', format: 'csv', command: 'test', sizeBytes: 1, options: {} });
  new EventWriter(store).write(
    readId,
    events.map((event, i) => ({ line: i + 2, raw: '', event })),
  );
  finishRead(store, readId, { rowsRead: count, staged: count, alreadyStaged: 0, duplicates: 0, skipped: 0, rejected: 0, recent: 0 }, undefined);
  store.close();
  return path;
}

function inProcess(path: string, maxEvents?: number, limits = LIMITS): Chunk[] {
  const store = StagingStore.open(path);
  try {
    return [...chunkStream(new PendingEvents(store, 1), limits, maxEvents)];
  } finally {
    store.close();
  }
}

async function onWorker(path: string, maxEvents?: number): Promise<Chunk[]> {
  const chunks: Chunk[] = [];
  for await (const chunk of readChunksOnWorker({ stagingPath: path, projectId: 1, limits: LIMITS, maxEvents, order: DEFAULT_SEND_ORDER })) chunks.push(chunk);
  return chunks;
}

describe('readChunksOnWorker', () => {
  const tempDir = useTempDir();

  it('gives the chunks chunkStream gives in-process, byte for byte', async () => {
    const path = stagedFile(tempDir(), 3000);
    const expected = inProcess(path);
    const chunks = await onWorker(path);
    expect(chunks.length).toBeGreaterThan(75);
    // Chunks of events with the persons they touch (the person updates here link no ids).
    const withPersons = expected.map((c) => ({ ...c, eventsJson: c.eventsJson.toString(), ...(c.kind === 0 ? { persons: chunkPersons(c.eventsJson, c.ends, (id) => id) } : {}) }));
    expect(chunks.map((c) => ({ ...c, eventsJson: c.eventsJson.toString() }))).toEqual(withPersons);
    expect(chunks.every((c) => Buffer.isBuffer(c.eventsJson))).toBe(true);
  });

  it("compresses each chunk's whole body for the run's key when asked (gzip on)", async () => {
    const path = stagedFile(tempDir(), 600);
    const chunks: Chunk[] = [];
    for await (const chunk of readChunksOnWorker({ stagingPath: path, projectId: 1, limits: LIMITS, order: DEFAULT_SEND_ORDER, gzipApiKey: 'phc_key' })) chunks.push(chunk);
    const expected = inProcess(path);
    expect(chunks.map((c) => c.seqs)).toEqual(expected.map((c) => c.seqs));
    chunks.forEach((chunk, i) => expect(gunzipSync(chunk.gzipBody!)).toEqual(batchBody('phc_key', expected[i]!.eventsJson)));
    // The events' JSON comes from the compressed body when asked (to split a chunk).
    expect(chunks.map((c) => c.eventsJson.toString())).toEqual(expected.map((c) => c.eventsJson.toString()));
    expect((await onWorker(path)).every((c) => c.gzipBody === undefined)).toBe(true);
  });

  it('sends whole bodies of chunks large enough that the reader frees their uncompressed copies', async () => {
    // Chunks of a day's events (tens of KB): the worker frees their JSON and body once
    // compressed; what it answers must not be a view of either.
    const limits: ChunkLimits = { maxEvents: 1000, maxBytes: 1024 * 1024, overheadBytes: 60 };
    const path = stagedFile(tempDir(), 3000);
    const expected = inProcess(path, undefined, limits);
    expect(expected.some((c) => c.eventsJson.length > 16 * 1024)).toBe(true);
    const chunks: Chunk[] = [];
    for await (const chunk of readChunksOnWorker({ stagingPath: path, projectId: 1, limits, order: DEFAULT_SEND_ORDER, gzipApiKey: 'phc_key' })) chunks.push(chunk);
    expect(chunks.map((c) => c.seqs)).toEqual(expected.map((c) => c.seqs));
    chunks.forEach((chunk, i) => expect(gunzipSync(chunk.gzipBody!)).toEqual(batchBody('phc_key', expected[i]!.eventsJson)));
  });

  it('names the persons of each chunk of events, ids a person update links counting as one', async () => {
    const row = (i: number, kind: 0 | 1, distinctId: string, properties: Record<string, unknown>): StagedEvent => ({
      uuid: uuidBytes(`01900000-0000-7000-8000-${String(i + 1).padStart(12, '0')}`),
      kind,
      event: kind === 1 ? '$identify' : 'viewed',
      distinctId,
      timestampMs: T0 + i,
      propertiesJson: JSON.stringify({ $geoip_disable: true, ...properties }),
    });
    const path = stagedEvents(tempDir(), [row(0, 1, 'u', { $anon_distinct_id: 'anon', $set: { plan: 'pro' } }), row(1, 0, 'anon', { $set: { plan: 'free' } }), row(2, 0, 'u', {}), row(3, 0, 'v', {})]);
    const events = (await onWorker(path)).filter((c) => c.kind === 0);
    expect(events.map((c) => c.persons)).toEqual([{ all: Uint32Array.from(['u', 'v'].map(personHash)), changed: Uint32Array.from([personHash('u')]) }]);
  });

  it('stops after maxEvents (import --sample)', async () => {
    const path = stagedFile(tempDir(), 500);
    const chunks = await onWorker(path, 123);
    expect(chunks.reduce((n, c) => n + c.seqs.length, 0)).toBe(123);
    expect(chunks.flatMap((c) => c.seqs)).toEqual(inProcess(path, 123).flatMap((c) => c.seqs));
  });

  it('ends its worker when the run stops taking chunks', async () => {
    const path = stagedFile(tempDir(), 3000);
    const taken: Chunk[] = [];
    for await (const chunk of readChunksOnWorker({ stagingPath: path, projectId: 1, limits: LIMITS, order: DEFAULT_SEND_ORDER })) {
      taken.push(chunk);
      if (taken.length === 3) break;
    }
    expect(taken.map((c) => c.seqs)).toEqual(
      inProcess(path)
        .slice(0, 3)
        .map((c) => c.seqs),
    );
  });

  it('reports a staging file it cannot read, as the error it is (its class and exit code cross the thread)', async () => {
    await expect(onWorker(join(tempDir(), 'missing.db'))).rejects.toThrow(expect.objectContaining({ name: 'StagingError', exitCode: 7, message: expect.stringMatching(/^no staging file at /) }));
  });
});
