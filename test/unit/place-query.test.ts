import { describe, expect, it } from 'vitest';
import { splitGlob } from '../../src/sources/input-names.js';
import { folderRole, mayMatchBelow, patternRole } from '../../src/sources/places/place-query.js';

const JSON_LINES = ['.json', '.jsonl', '.ndjson'];

describe('which keys below a folder an argument reads', () => {
  it.each([
    // [key below the folder, role]
    ['a.json', 'data'],
    ['deep/b.jsonl.gz', 'data'],
    ['notes.txt', 'other'],
    ['.hidden.json', 'skipped'],
    ['.cache/a.json', 'skipped'],
    ['__MACOSX/._a.json', 'skipped'],
    ['complete', 'skipped'],
    ['deep/_SUCCESS', 'skipped'],
    ['x_manifest.json', 'manifest'],
    ['archive.zip', 'data'],
  ])('a folder read: %s is %s', (key, role) => expect(folderRole(key, JSON_LINES)).toBe(role));

  it.each([
    // [pattern below the bucket, key below the bucket, read]
    ['exports/2024-*/*.json.gz', 'exports/2024-01/a.json.gz', true],
    ['exports/2024-*/*.json.gz', 'exports/2024-01/a.json', false],
    ['exports/2024-*/*.json.gz', 'exports/2023-01/a.json.gz', false],
    ['exports/2024-*/*.json.gz', 'exports/2024-01/deep/a.json.gz', false],
    ['exports/2024-*', 'exports/2024-01/deep/a.json.gz', true],
    ['exports/2024-*', 'exports/2024-01/deep/a.csv', false],
    ['exports/*', 'exports/README.md', true],
    ['exports/*', 'exports/complete', false],
    ['exports/*', 'exports/.DS_Store', false],
    ['exports/**/*.json', 'exports/a/b/c.json', true],
    ['exports/**/*.json', 'exports/c.json', true],
    ['exports/**/*.json', 'exports/.git/c.json', false],
    ['exports/{a,b}/*.json', 'exports/b/x.json', true],
    ['exports/{a,b}/*.json', 'exports/c/x.json', false],
    ['exports/[ab].json', 'exports/a.json', true],
    // A trailing `**` reads the folders below as folders are read: every depth, the base too, never a file it names.
    ['exports/**', 'exports/a.json', true],
    ['exports/**', 'exports/deep/a.json', true],
    ['exports/**', 'exports/README.md', false],
    ['exports/*/**', 'exports/deep/a.json', true],
    ['exports/*/**', 'exports/README.md', false],
    ['exports/*/**', 'exports/a.json', false],
  ])('the pattern %s reads %s: %s', (pattern, key, read) => {
    const { base, segments } = splitGlob(pattern);
    expect(patternRole(segments, key.slice(base.length + 1), JSON_LINES) === 'data').toBe(read);
  });

  it.each([
    ['2024-*/*.json.gz', '2024-01', true],
    ['2024-*/*.json.gz', '2023-01', false],
    ['2024-*/*.json.gz', '2024-01/deep', false],
    ['2024-*', '2024-01/deep', true],
    ['**/*.json', 'a/b/c', true],
    ['**/*.json', 'a/.git', false],
  ])('the pattern %s looks below the folder %s: %s', (pattern, dir, below) => expect(mayMatchBelow(pattern.split('/'), dir.split('/'))).toBe(below));
});
