/** Skipping the text an interrupted read already staged: checked by its fingerprint, from any chunking. */
import { describe, expect, it } from 'vitest';
import { skipStagedText, TextProgress, utf8SourceBytes } from '../../src/stage-sources/text-progress.js';
import { createChunkDecoder } from '../../src/sources/text-decoder.js';
import { nothingStagedError, type StageSourcesResult } from '../../src/stage-sources/stage-sources.js';
import { EMPTY_TEXT_FINGERPRINT } from '../../src/staging/source-reads.js';

async function* chunks(...parts: string[]): AsyncIterable<string> {
  yield* parts;
}

async function collect(text: AsyncIterable<string>): Promise<string> {
  let out = '';
  for await (const part of text) out += part;
  return out;
}

function progressOf(text: string) {
  const tracker = new TextProgress();
  tracker.update(text);
  return { chars: tracker.chars, line: 3, fingerprint: tracker.fingerprint() };
}

describe('skipStagedText', () => {
  const staged = 'a,b\n1,é\n';

  it.each([
    ['in one chunk with the rest', [staged + '2,x\n3,y\n']],
    ['cut inside the staged text', ['a,', 'b\n1,', 'é\n2,x\n', '3,y\n']],
    ['ending exactly at the point', [staged, '2,x\n3,y\n']],
  ])('gives the rest when the text is the same: %s', async (_name, parts) => {
    const tracker = new TextProgress();
    const rest = await skipStagedText(chunks(...parts), progressOf(staged), tracker);
    expect(rest).toBeDefined();
    expect(await collect(rest!)).toBe('2,x\n3,y\n');
    expect(tracker.chars).toBe(staged.length);
  });

  it.each([
    ['changed before the point', ['a,b\n1,e\n2,x\n']],
    ['shorter than the point', ['a,b\n1']],
  ])('gives nothing when the file is not the one staged: %s', async (_name, parts) => {
    expect(await skipStagedText(chunks(...parts), progressOf(staged), new TextProgress())).toBeUndefined();
  });

  it('continues the fingerprint over the rest, as one pass over the whole text would', async () => {
    const tracker = new TextProgress();
    const rest = await skipStagedText(chunks('a,b\n1,é\n2,x\n'), progressOf(staged), tracker);
    tracker.update(await collect(rest!));
    expect(tracker.fingerprint()).toBe(progressOf('a,b\n1,é\n2,x\n').fingerprint);
    expect(new TextProgress().fingerprint()).toBe(EMPTY_TEXT_FINGERPRINT);
  });
});

describe('nothingStagedError', () => {
  const totals = { rowsRead: 0, staged: 0, alreadyStaged: 0, duplicates: 0, skipped: 0, rejected: 0, recent: 0, added: 0, withdrawn: 0, rejectedByReason: {}, skippedByReason: {}, notes: {} };
  const result = (t: Partial<StageSourcesResult['totals']>): StageSourcesResult => ({
    staging: 'm.db',
    files: [],
    totals: { ...totals, ...t },
    partial: [],
    unchanged: [],
    unreadable: [],
    elapsedMs: 1,
  });

  it.each<[string, Partial<StageSourcesResult['totals']>, string | undefined]>([
    [
      'every row rejected',
      { rowsRead: 3, rejected: 3, rejectedByReason: { bad_json: 1, implausible_timestamp: 2 } },
      'nothing was staged: every row read was rejected (2 implausible_timestamp, 1 bad_json)',
    ],
    ['skipped and rejected', { rowsRead: 3, skipped: 1, rejected: 2, rejectedByReason: { bad_json: 2 } }, 'nothing was staged: no row was staged and some were rejected (2 bad_json)'],
    ['rejected next to new', { rowsRead: 3, staged: 1, rejected: 2 }, undefined],
    ['rejected next to already staged', { rowsRead: 3, alreadyStaged: 1, rejected: 2 }, undefined],
    ['nothing rejected', { rowsRead: 3, skipped: 3 }, undefined],
    ['every row mapped to null', { rowsRead: 3, skipped: 3, skippedByReason: { map: 3 } }, undefined],
    ['every row left out by the filters', { rowsRead: 3, skipped: 3, skippedByReason: { '--only-events': 2, map: 1 } }, 'nothing was staged: every row read was skipped (2 --only-events)'],
    ['every row dropped by the transform', { rowsRead: 2, skipped: 2, skippedByReason: { 'transform t.mjs': 2 } }, 'nothing was staged: every row read was skipped (2 transform t.mjs)'],
    ['some left out, the rest already staged', { rowsRead: 3, skipped: 2, alreadyStaged: 1, skippedByReason: { '--since': 2 } }, undefined],
  ])('%s', (_name, t, message) => {
    const error = nothingStagedError(result(t));
    expect(error?.message).toBe(message);
    if (error) expect(error.exitCode).toBe(3);
  });
});

describe('utf8SourceBytes', () => {
  it.each([
    ['ASCII', Buffer.from('a,b\n1,2\n')],
    ['multi-byte characters', Buffer.from('é,€\n😀\n')],
    ['a byte that is not valid UTF-8', Buffer.from([0x61, 0xff, 0x0a])],
    ['a character cut short', Buffer.from([0x61, 0xe2, 0x82, 0x0a, 0x62])],
    ['a lone surrogate written as UTF-8', Buffer.from([0xed, 0xa0, 0x80, 0x0a])],
  ])('counts the bytes the decoded text came from: %s', (_name, bytes) => {
    const decoder = createChunkDecoder('utf-8');
    const text = decoder.decode(bytes) + decoder.end();
    expect(utf8SourceBytes(text)).toBe(bytes.length);
    const tracker = new TextProgress();
    tracker.update(text);
    expect(tracker.bytes).toBe(bytes.length);
  });
});
