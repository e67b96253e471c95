/**
 * The pure rules behind "a response counts as delivery only when it is PostHog's
 * acknowledgement" and "every stop is clean": reading answers, the learned body size, the
 * dead-letter allowance, storage failure kinds, the progress line of a sample, and when a
 * spinner may be drawn.
 */
import { describe, expect, it } from 'vitest';
import { colourAllowed, progressMode } from '../../src/cli/terminal/progress.js';
import { ChunkBuilder, leadingPiece, type Chunk } from '../../src/delivery/chunker.js';
import { encodeEvent } from '../../src/delivery/event-encoding.js';
import { describeAnswer, foreignAnswer, isAcknowledgement, isPostHogError, refusalMeaning } from '../../src/delivery/ingestion-answer.js';
import { deadLetterAllowance, RefusalGuard } from '../../src/delivery/refusal-guard.js';
import { SizeGovernor } from '../../src/delivery/size-governor.js';
import { progressLine } from '../../src/import/progress-line.js';
import { storageFailureKind } from '../../src/sqlite/storage-failure.js';

const body = (text: string): Buffer => Buffer.from(text);
const HTML = '<!DOCTYPE html>\n<html><head><title>Sign in</title></head>\n<body>Please   log in</body></html>';

describe('isAcknowledgement: only PostHog acknowledges', () => {
  it.each([
    ['{"status":"Ok"}', true],
    ['{"status": 1}', true],
    [' {"status":"Ok","extra":true} ', true],
    ['', false],
    [HTML, false],
    ['{"status":"ok"}', false],
    ['{"ok":true}', false],
    ['{"status":"Ok"', false],
    ['[{"status":"Ok"}]', false],
    ['"Ok"', false],
  ])('%j: %s', (text, expected) => {
    expect(isAcknowledgement(body(text))).toBe(expected);
  });
});

describe('refusalMeaning: what a 400 of /batch/ means', () => {
  it.each([
    ['capture: a bad event', '{"status":400,"code":"missing_distinct_id","error":"event submitted without a distinct_id"}', 'bad-events'],
    ['the API shape', '{"type":"validation_error","code":"invalid_input","detail":"Invalid input"}', 'bad-events'],
    ['capture: a size error', '{"status":400,"code":"payload_too_large","error":"request too large"}', 'too-large'],
    ['a size error in words', '{"type":"validation_error","code":"invalid","detail":"Request body size exceeds the maximum"}', 'too-large'],
    ['an HTML page', HTML, 'foreign'],
    ['an empty body', '', 'foreign'],
    ['plain text', 'Bad Request', 'foreign'],
    ['other JSON', '{"message":"nope"}', 'foreign'],
  ])('%s', (_name, text, expected) => {
    expect(refusalMeaning(400, { 'content-type': 'text/html; charset=utf-8' }, body(text)).type).toBe(expected);
  });

  it('knows both PostHog error shapes and nothing else', () => {
    expect(isPostHogError(body('{"type":"x","detail":"y"}'))).toBe(true);
    expect(isPostHogError(body('{"code":"x","error":"y"}'))).toBe(true);
    expect(isPostHogError(body('{"error":"y"}'))).toBe(false);
  });
});

describe('foreignAnswer', () => {
  it('shows status, content type and the first 200 characters, whitespace collapsed', () => {
    const answer = foreignAnswer(200, { 'content-type': 'text/html; charset=utf-8' }, body(HTML + 'x'.repeat(500)));
    expect(answer.excerpt).toHaveLength(200);
    expect(describeAnswer(answer)).toMatch(/^HTTP 200 \(text\/html\): <!DOCTYPE html> <html><head><title>Sign in<\/title><\/head> <body>Please log in<\/body><\/html>x+$/);
  });

  it('says when there is no body or no content type', () => {
    expect(describeAnswer(foreignAnswer(204, {}, body('  ')))).toBe('HTTP 204 ((no content type)): (empty body)');
  });
});

describe('SizeGovernor: send at the size that fitted', () => {
  it('has no limit until a body is refused as too large', () => {
    const sizes = new SizeGovernor();
    sizes.accepted(5_000_000);
    expect(sizes.targetBytes()).toBe(Number.POSITIVE_INFINITY);
  });

  it('halves after a refusal, keeps the size that fitted, and probes towards the limit now and then', () => {
    const limit = 65_536;
    const sizes = new SizeGovernor();
    let sent = 0;
    let refused = 0;
    let size = 2 * 1024 * 1024;
    // A host refusing bodies over `limit`: each body goes out at the target (or the first at full size).
    for (let i = 0; i < 200; i++) {
      const target = sizes.targetBytes();
      const bytes = Math.min(size, target);
      sent++;
      if (bytes > limit) {
        refused++;
        sizes.refused(bytes);
      } else {
        sizes.accepted(bytes);
      }
      size = 2 * 1024 * 1024;
    }
    expect(refused / sent).toBeLessThan(0.1);
    expect(sizes.targetBytes()).toBeGreaterThan(limit * 0.85);
    expect(sizes.targetBytes()).toBeLessThanOrEqual(limit);
  });
});

describe('leadingPiece', () => {
  const chunk = (n: number): Chunk => {
    const builder = new ChunkBuilder({ maxEvents: 1000, maxBytes: 1 << 30, overheadBytes: 50 });
    for (let seq = 1; seq <= n; seq++) {
      builder.add(encodeEvent({ seq, uuid: `0194${String(seq).padStart(4, '0')}-0000-7000-8000-000000000000`, kind: 0, event: 'e', distinctId: 'd', timestampMs: 1e12 + seq, propertiesJson: '{}' }));
    }
    return builder.flush()!;
  };

  it.each([
    [10, 1 << 20, 10, 0],
    [10, 50 + 300, 2, 8],
    [10, 10, 1, 9],
    [1, 10, 1, 0],
  ])('%i events, at most %i bytes: %i then %i', (n, maxBytes, first, rest) => {
    const [piece, after] = leadingPiece(chunk(n), maxBytes, 50);
    expect(piece.seqs).toHaveLength(first);
    expect(after?.seqs.length ?? 0).toBe(rest);
    if (first > 1) expect(piece.bytes).toBeLessThanOrEqual(maxBytes);
    if (after) expect(JSON.parse(`[${after.eventsJson}]`)).toHaveLength(rest);
  });
});

describe('dead-letter allowance', () => {
  it.each([
    [3000, 100, 100],
    [200_000, 100, 2000],
    [50, 0, 0],
    [3000, 10, 30],
  ])('a run of %i events with floor %i may dead-letter %i', (events, floor, expected) => {
    expect(deadLetterAllowance(events, floor)).toBe(expected);
  });

  it('counts refusals still being bisected, and gives back those not recorded', () => {
    const guard = new RefusalGuard(2);
    expect([guard.admit(1), guard.admit(1), guard.admit(1)]).toEqual([true, true, false]);
    guard.release(2);
    expect(guard.admit(1)).toBe(true);
  });
});

describe('storageFailureKind', () => {
  it.each([
    ['SQLITE_FULL', 'disk-full'],
    ['ENOSPC', 'disk-full'],
    ['SQLITE_READONLY', 'not-writable'],
    ['SQLITE_READONLY_DBMOVED', 'not-writable'],
    ['EROFS', 'not-writable'],
    ['EACCES', 'not-writable'],
    ['SQLITE_CANTOPEN', 'cannot-open'],
    ['SQLITE_CORRUPT', 'damaged'],
    ['SQLITE_CORRUPT_INDEX', 'damaged'],
    ['SQLITE_NOTADB', 'damaged'],
    ['SQLITE_BUSY_SNAPSHOT', 'busy'],
    ['SQLITE_IOERR_WRITE', 'io'],
    ['SQLITE_CONSTRAINT_UNIQUE', undefined],
    ['ERR_SOMETHING', undefined],
  ])('%s: %s', (code, expected) => {
    expect(storageFailureKind(Object.assign(new Error('x'), { code }))).toBe(expected);
  });

  it('reads a write that ran out of space as a full disk', () => {
    expect(storageFailureKind(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_IOERR_WRITE' }))).toBe('disk-full');
  });
});

describe('progressLine', () => {
  const pace = { perSec: Number.POSITIVE_INFINITY, hold: 'ceiling' as const };
  const stats = { delivered: 12_000, deadLettered: 0, retries: 0, requests: 12, chunks: 12, wireBytes: 0, abandoned: 0, refused: 0, retryWaitMs: 0, pace, startedMs: 0 };
  it('uses the sample as the total of a sample run', () => {
    const line = progressLine({ project: 'test', settledBefore: 0, totalStaged: 200_000, runTarget: 20_000, sample: true }, stats, 2000);
    expect(line).toBe('test: sample 12,000/20,000 sent (60%) · 6,000 events/s · ETA 1s · 0 retries');
  });

  it('uses the staging file as the total of a full run', () => {
    const line = progressLine({ project: 'test', settledBefore: 0, totalStaged: 200_000, runTarget: 200_000 }, stats, 2000);
    expect(line).toBe('test: 12,000/200,000 sent (6%) · 6,000 events/s · ETA 31s · 0 retries');
  });

  it.each([
    ['throttled', "pace 2,870 ev/s, held by the server's 429s"],
    ['unavailable', "pace 2,870 ev/s, held by the server's 503s"],
    ['ceiling', 'pace 2,870 ev/s, held at --max-rate'],
    ['probing', 'pace 2,870 ev/s, probing for more room'],
  ] as const)('shows the pace and what holds it (%s)', (hold, text) => {
    const line = progressLine({ project: 'test', settledBefore: 0, totalStaged: 200_000, runTarget: 200_000 }, { ...stats, pace: { perSec: 2870.4, hold } }, 2000);
    expect(line).toBe(`test: 12,000/200,000 sent (6%) · 6,000 events/s · ${text} · ETA 31s · 0 retries`);
  });
});

describe('progressMode: progress never blocks work', () => {
  it.each([
    [{ isTTY: true, columns: 80 }, 'spinner'],
    [{ isTTY: true, columns: 0 }, 'plain'],
    [{ isTTY: true, columns: undefined as unknown as number }, 'plain'],
    [{ isTTY: false, columns: 80 }, 'plain'],
  ])('%j: %s', (stream, expected) => {
    expect(progressMode(stream)).toBe(expected);
  });

  it.each([
    [{}, true],
    [{ NO_COLOR: '' }, true],
    [{ NO_COLOR: '1' }, false],
  ])('colour with %j: %s', (env, expected) => {
    expect(colourAllowed(env)).toBe(expected);
  });
});
