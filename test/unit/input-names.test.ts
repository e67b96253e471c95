import { describe, expect, it } from 'vitest';
import { ANY_GZIP, classifyName, globSegmentToRegExp, hasGlobMagic, isHiddenPath, isMarkerName, naturalCompare, NOT_READ, splitGlob } from '../../src/sources/input-names.js';

const JSON_LINES = ['.jsonl', '.ndjson', '.json'];

describe('source file names', () => {
  it.each<[string, string | undefined]>([
    ['events.json', 'file'],
    ['123456_2025-09-01_9#0.json.gz', 'file'],
    ['EVENTS.JSONL', 'file'],
    ['export.ndjson.gz', 'file'],
    ['export.zip', 'archive'],
    ['Export.ZIP', 'archive'],
    ['notes.md', undefined],
    ['events.csv', undefined],
    ['events.gz', undefined],
  ])('%s is %s', (name, kind) => {
    expect(classifyName(name, JSON_LINES)).toBe(kind);
  });

  it.each<[string, string | undefined]>([
    ['1756770800000.a91f3c2e7b04.gz', 'file'],
    ['events.json', 'file'],
    ['archive.zip', 'archive'],
    ['1756770800000.a91f3c2e7b04', undefined],
    ['notes.md', undefined],
  ])('with ANY_GZIP (Segment), %s is %s', (name, kind) => {
    expect(classifyName(name, [...JSON_LINES, ANY_GZIP])).toBe(kind);
  });

  it.each<[string, string | undefined]>([
    ['2024-01-01T00:00:00+00:00-2024-01-02T00:00:00+00:00-0.parquet.zst', 'file'],
    ['2024-01-01T00:00:00+00:00-2024-01-02T00:00:00+00:00_manifest.json', undefined],
    ['events.json', 'file'],
  ])('with a name never read (PostHog), %s is %s', (name, kind) => {
    expect(classifyName(name, [...JSON_LINES, '.parquet.zst', `${NOT_READ}_manifest.json`])).toBe(kind);
  });

  it.each<[string, boolean]>([
    ['.DS_Store', true],
    ['dir/.hidden/a.json', true],
    ['__MACOSX/._a.json', true],
    ['a/__MACOSX/b.json', true],
    ['./exports/a.json', false],
    ['../exports/a.json', false],
    ['123456/123456_2025-09-01_9#0.json.gz', false],
  ])('%s hidden: %s', (path, hidden) => {
    expect(isHiddenPath(path)).toBe(hidden);
  });

  it.each<[string, boolean]>([
    ['complete', true],
    ['2025/09/01/full_day/complete', true],
    ['COMPLETE', true],
    ['_SUCCESS', true],
    ['complete.json', false],
    ['incomplete', false],
    ['part-0.json.gz', false],
  ])('%s is a completion marker: %s', (name, marker) => {
    expect(isMarkerName(name)).toBe(marker);
  });
});

describe('globs', () => {
  it.each<[string, string, boolean]>([
    ['*.json', 'a.json', true],
    ['*.json', 'a.json.gz', false],
    ['*.json', '.a.json', false],
    ['.*.json', '.a.json', true],
    ['export-2025-0?.jsonl', 'export-2025-09.jsonl', true],
    ['export-2025-0?.jsonl', 'export-2025-10.jsonl', false],
    ['[ab]*.json', 'b1.json', true],
    ['[!ab]*.json', 'b1.json', false],
    ['*.{json,jsonl}', 'x.jsonl', true],
    ['*.{json,jsonl}', 'x.csv', false],
    ['a+b(1).json', 'a+b(1).json', true],
    ['123456_*#0.json.gz', '123456_2025-09-01_9#0.json.gz', true],
  ])('%s matches %s: %s', (pattern, name, matches) => {
    expect(globSegmentToRegExp(pattern).test(name)).toBe(matches);
  });

  it.each<[string, { base: string; segments: string[] }]>([
    ['*.json', { base: '.', segments: ['*.json'] }],
    ['exports/2025-*/*.json.gz', { base: 'exports', segments: ['2025-*', '*.json.gz'] }],
    ['/data/**/*.jsonl', { base: '/data', segments: ['**', '*.jsonl'] }],
    ['/*.json', { base: '/', segments: ['*.json'] }],
  ])('%s splits into %j', (pattern, expected) => {
    expect(splitGlob(pattern)).toEqual(expected);
  });

  it('tells glob syntax from a plain name', () => {
    expect(['a*.json', 'a?.json', 'a[1].json', 'a{b,c}'].map(hasGlobMagic)).toEqual([true, true, true, true]);
    expect(hasGlobMagic('exports/2025-09-01.json')).toBe(false);
  });
});

describe('natural order', () => {
  it('sorts hours as numbers and the rest by code unit, the same everywhere', () => {
    const names = ['p_2025-09-01_10#0.json.gz', 'p_2025-09-01_9#1.json.gz', 'p_2025-09-01_9#0.json.gz', 'p_2025-09-02_0#0.json.gz', 'B.json', 'a.json', 'é.json'];
    expect([...names].sort(naturalCompare)).toEqual(['B.json', 'a.json', 'p_2025-09-01_9#0.json.gz', 'p_2025-09-01_9#1.json.gz', 'p_2025-09-01_10#0.json.gz', 'p_2025-09-02_0#0.json.gz', 'é.json']);
    expect(naturalCompare('a01', 'a1')).not.toBe(0);
  });
});
