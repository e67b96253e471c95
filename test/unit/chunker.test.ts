import { describe, expect, it } from 'vitest';
import { ChunkBuilder, chunkBytes, splitChunk, type Chunk } from '../../src/delivery/chunker.js';
import { batchBody, bodyOverheadBytes, encodeEvent, type EncodedEvent, type OutgoingEvent } from '../../src/delivery/event-encoding.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2025, 0, 1, 10);

function outgoing(seq: number, over: Partial<OutgoingEvent> = {}): OutgoingEvent {
  return {
    seq,
    uuid: `0194${String(seq).padStart(4, '0')}-0000-7000-8000-000000000000`,
    kind: 0,
    event: 'pageview',
    distinctId: `user_${seq}`,
    timestampMs: T0 + seq,
    propertiesJson: '{"a":1}',
    ...over,
  };
}

function cut(events: EncodedEvent[], maxEvents: number, maxBytes: number, overheadBytes = 50): number[][] {
  const builder = new ChunkBuilder({ maxEvents, maxBytes, overheadBytes });
  const chunks: Chunk[] = [];
  for (const e of events) {
    const closed = builder.add(e);
    if (closed) chunks.push(closed);
  }
  const rest = builder.flush();
  if (rest) chunks.push(rest);
  for (const c of chunks) expect(c.bytes).toBe(chunkBytes(c.events, overheadBytes));
  return chunks.map((c) => c.events.map((e) => e.seq));
}

describe('encodeEvent and batchBody', () => {
  it('splices the stored properties text and writes an ISO UTC timestamp with ms', () => {
    const e = encodeEvent(outgoing(1, { event: 'say "hi"', distinctId: 'ü', propertiesJson: '{"z":1,"a":[true]}' }));
    const body = JSON.parse(batchBody('phc_key', [e]));
    expect(body).toEqual({
      api_key: 'phc_key',
      historical_migration: true,
      batch: [{ uuid: outgoing(1).uuid, event: 'say "hi"', distinct_id: 'ü', timestamp: '2025-01-01T10:00:00.001Z', properties: { z: 1, a: [true] } }],
    });
    expect(body).not.toHaveProperty('sent_at');
    expect(e.bytes).toBe(Buffer.byteLength(e.json));
  });

  it('knows the exact body size', () => {
    const events = [1, 2, 3].map((i) => encodeEvent(outgoing(i)));
    const body = batchBody('phc_abc', events);
    expect(Buffer.byteLength(body)).toBe(chunkBytes(events, bodyOverheadBytes('phc_abc')));
    expect(Buffer.byteLength(batchBody('phc_abc', []))).toBe(bodyOverheadBytes('phc_abc'));
  });

  it('is deterministic: a re-sent event is the same bytes', () => {
    expect(encodeEvent(outgoing(7)).json).toBe(encodeEvent(outgoing(7)).json);
  });
});

describe('ChunkBuilder', () => {
  const size = encodeEvent(outgoing(1)).bytes;
  it.each([
    ['by count', Array.from({ length: 7 }, (_, i) => outgoing(i + 1)), 3, 1e6, [[1, 2, 3], [4, 5, 6], [7]]],
    ['by bytes (two fit)', Array.from({ length: 5 }, (_, i) => outgoing(i + 1)), 100, 50 + 2 * size + 1, [[1, 2], [3, 4], [5]]],
    ['by bytes (one byte short of two)', Array.from({ length: 3 }, (_, i) => outgoing(i + 1)), 100, 50 + 2 * size, [[1], [2], [3]]],
    ['an event over the byte limit goes alone', [outgoing(1), outgoing(2, { propertiesJson: `{"x":"${'y'.repeat(500)}"}` }), outgoing(3)], 100, 50 + 2 * size + 1, [[1], [2], [3]]],
    ['at a UTC day change', [outgoing(1), outgoing(2), outgoing(3, { timestampMs: T0 + DAY }), outgoing(4, { timestampMs: T0 + DAY + 1 })], 100, 1e6, [[1, 2], [3, 4]]],
    ['at a kind change', [outgoing(1), outgoing(2, { kind: 1 }), outgoing(3, { kind: 1 }), outgoing(4, { kind: 2 })], 100, 1e6, [[1], [2, 3], [4]]],
    ['nothing in, nothing out', [], 10, 1e6, []],
  ] as const)('cuts %s', (_name, events, maxEvents, maxBytes, expected) => {
    expect(cut(events.map(encodeEvent), maxEvents, maxBytes)).toEqual(expected);
  });
});

describe('splitChunk', () => {
  it.each([
    [2, [[1], [2]]],
    [3, [[1, 2], [3]]],
    [8, [[1, 2, 3, 4], [5, 6, 7, 8]]],
  ])('%i events', (n, expected) => {
    const events = Array.from({ length: n }, (_, i) => encodeEvent(outgoing(i + 1)));
    const halves = splitChunk({ events, bytes: chunkBytes(events, 40), kind: 0 }, 40);
    expect(halves.map((h) => h.events.map((e) => e.seq))).toEqual(expected);
    for (const h of halves) expect(h.bytes).toBe(chunkBytes(h.events, 40));
  });
});
