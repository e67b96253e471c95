import { describe, expect, it } from 'vitest';
import { ChunkBuilder, eventJsonAt, leadingEventsJson, splitChunk, type Chunk } from '../../src/delivery/chunker.js';
import { batchBody, bodyOverheadBytes, encodeEvent, encodedJson, eventJson, uuidOfEventJson, type EncodedEvent, type OutgoingEvent, type TextEvent } from '../../src/delivery/event-encoding.js';

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

function chunksOf(events: readonly EncodedEvent[], maxEvents: number, maxBytes: number, overheadBytes = 50): Chunk[] {
  const builder = new ChunkBuilder({ maxEvents, maxBytes, overheadBytes });
  const chunks: Chunk[] = [];
  for (const e of events) {
    const closed = builder.add(e);
    if (closed) chunks.push(closed);
  }
  const rest = builder.flush();
  if (rest) chunks.push(rest);
  return chunks;
}

/** Checks each chunk holds exactly its events' JSON, then gives the seqs per chunk. */
function cut(events: readonly TextEvent[], maxEvents: number, maxBytes: number, overheadBytes = 50): number[][] {
  const chunks = chunksOf(events, maxEvents, maxBytes, overheadBytes);
  const bySeq = new Map(events.map((e) => [e.seq, encodedJson(e)]));
  for (const c of chunks) {
    const joined = c.seqs.map((seq) => bySeq.get(seq)!).join(',');
    expect(c.eventsJson.toString()).toBe(joined);
    expect(c.bytes).toBe(overheadBytes + Buffer.byteLength(joined));
    expect(c.ends).toHaveLength(c.seqs.length);
    c.seqs.forEach((seq, i) => expect(eventJsonAt(c, i)).toBe(bySeq.get(seq)));
  }
  return chunks.map((c) => c.seqs);
}

describe('encodeEvent and batchBody', () => {
  it('splices the stored properties text and writes an ISO UTC timestamp with ms', () => {
    const e = encodeEvent(outgoing(1, { event: 'say "hi"', distinctId: 'ü', propertiesJson: '{"z":1,"a":[true]}' }));
    const body = JSON.parse(batchBody('phc_key', Buffer.from(encodedJson(e))).toString());
    expect(body).toEqual({
      api_key: 'phc_key',
      historical_migration: true,
      batch: [{ uuid: outgoing(1).uuid, event: 'say "hi"', distinct_id: 'ü', timestamp: '2025-01-01T10:00:00.001Z', properties: { z: 1, a: [true] } }],
    });
    expect(body).not.toHaveProperty('sent_at');
    expect(uuidOfEventJson(encodedJson(e))).toBe(outgoing(1).uuid);
  });

  it('knows the exact body size', () => {
    const [chunk] = chunksOf(
      [1, 2, 3].map((i) => encodeEvent(outgoing(i, { event: `é${i}` }))),
      10,
      1e6,
      bodyOverheadBytes('phc_abc'),
    );
    expect(batchBody('phc_abc', chunk!.eventsJson).length).toBe(chunk!.bytes);
    expect(batchBody('phc_abc', Buffer.alloc(0)).length).toBe(bodyOverheadBytes('phc_abc'));
  });

  it('is deterministic: a re-sent event is the same bytes', () => {
    expect(eventJson(outgoing(7))).toBe(eventJson(outgoing(7)));
  });
});

describe('ChunkBuilder', () => {
  const size = Buffer.byteLength(eventJson(outgoing(1)));
  const wide = (seq: number) => outgoing(seq, { distinctId: `üser_${seq}` }); // as many characters as user_N, one byte more
  it.each([
    ['by count', Array.from({ length: 7 }, (_, i) => outgoing(i + 1)), 3, 1e6, [[1, 2, 3], [4, 5, 6], [7]]],
    ['by bytes (two fit)', Array.from({ length: 5 }, (_, i) => outgoing(i + 1)), 100, 50 + 2 * size + 1, [[1, 2], [3, 4], [5]]],
    ['by bytes (one byte short of two)', Array.from({ length: 3 }, (_, i) => outgoing(i + 1)), 100, 50 + 2 * size, [[1], [2], [3]]],
    ['by UTF-8 bytes, not characters', Array.from({ length: 3 }, (_, i) => wide(i + 1)), 100, 50 + 2 * size + 1, [[1], [2], [3]]],
    ['an event over the byte limit goes alone', [outgoing(1), outgoing(2, { propertiesJson: `{"x":"${'y'.repeat(500)}"}` }), outgoing(3)], 100, 50 + 2 * size + 1, [[1], [2], [3]]],
    [
      'at a UTC day change',
      [outgoing(1), outgoing(2), outgoing(3, { timestampMs: T0 + DAY }), outgoing(4, { timestampMs: T0 + DAY + 1 })],
      100,
      1e6,
      [
        [1, 2],
        [3, 4],
      ],
    ],
    ['at a kind change', [outgoing(1), outgoing(2, { kind: 1 }), outgoing(3, { kind: 1 }), outgoing(4, { kind: 2 })], 100, 1e6, [[1], [2, 3], [4]]],
    ['nothing in, nothing out', [], 10, 1e6, []],
  ] as const)('cuts %s', (_name, events, maxEvents, maxBytes, expected) => {
    expect(cut(events.map(encodeEvent), maxEvents, maxBytes)).toEqual(expected);
  });

  it('takes events larger than its scratch space, in any mix', () => {
    const big = (seq: number, n: number) => encodeEvent(outgoing(seq, { propertiesJson: `{"x":"${'€'.repeat(n)}"}` }));
    const events = [encodeEvent(outgoing(1)), big(2, 500_000), encodeEvent(outgoing(3)), big(4, 900_000), big(5, 10)];
    expect(cut(events, 100, 4 * 1024 * 1024)).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
  });
});

describe('splitChunk', () => {
  it.each([
    [2, [[1], [2]]],
    [3, [[1, 2], [3]]],
    [
      8,
      [
        [1, 2, 3, 4],
        [5, 6, 7, 8],
      ],
    ],
  ])('%i events', (n, expected) => {
    const events = Array.from({ length: n }, (_, i) => encodeEvent(outgoing(i + 1, { event: `ä${'x'.repeat(i)}` })));
    const [chunk] = chunksOf(events, 100, 1e6, 40);
    const halves = splitChunk(chunk!, 40);
    expect(halves.map((h) => h.seqs)).toEqual(expected);
    for (const h of halves) {
      const joined = h.seqs.map((seq) => encodedJson(events[seq - 1]!)).join(',');
      expect(h.eventsJson.toString()).toBe(joined);
      expect(h.bytes).toBe(40 + Buffer.byteLength(joined));
      h.seqs.forEach((seq, i) => expect(eventJsonAt(h, i)).toBe(encodedJson(events[seq - 1]!)));
      expect(h.kind).toBe(chunk!.kind);
    }
  });

  it('gives the leading events of a chunk', () => {
    const events = [1, 2, 3].map((i) => encodeEvent(outgoing(i)));
    const [chunk] = chunksOf(events, 100, 1e6);
    expect(leadingEventsJson(chunk!, 2).toString()).toBe(`${encodedJson(events[0]!)},${encodedJson(events[1]!)}`);
    expect(leadingEventsJson(chunk!, 5).toString()).toBe(events.map(encodedJson).join(','));
  });
});
