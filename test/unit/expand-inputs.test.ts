import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { diskPlace } from '../../src/sources/places/disk-place.js';
import { expandArgument } from '../../src/sources/places/expand-argument.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const JSON_LINES = ['.jsonl', '.ndjson', '.json'];

/** The names an argument gives on disk (places/expand-argument.ts, as for a bucket prefix). */
async function expandInput(arg: string, extensions: readonly string[]): Promise<string[]> {
  return (await expandArgument(diskPlace, arg, extensions)).found.map((found) => found.name);
}

/** A folder of exports as people have them: nested, with hidden and unrelated files. */
function exportsFolder(): string {
  const dir = tempDir();
  const files = [
    'export/123456/123456_2025-09-01_10#0.json.gz',
    'export/123456/123456_2025-09-01_9#0.json.gz',
    'export/123456/123456_2025-09-01_9#1.json.gz',
    'export/archive.zip',
    'export/README.md',
    'export/.DS_Store',
    'export/.cache/old.json',
    'export/__MACOSX/._a.json',
    'export/b.jsonl',
    'export/A.ndjson',
  ];
  for (const file of files) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), '{}\n');
  }
  return dir;
}

const relativeTo = (dir: string) => (files: string[]) => files.map((file) => relative(dir, file));

describe('expanding source arguments', () => {
  it('reads a directory recursively: the names the format reads and zips, hidden files skipped, natural order', async () => {
    const dir = exportsFolder();
    expect(relativeTo(dir)(await expandInput(join(dir, 'export'), JSON_LINES))).toEqual([
      'export/123456/123456_2025-09-01_9#0.json.gz',
      'export/123456/123456_2025-09-01_9#1.json.gz',
      'export/123456/123456_2025-09-01_10#0.json.gz',
      'export/A.ndjson',
      'export/archive.zip',
      'export/b.jsonl',
    ]);
  });

  it.each<[string, string[]]>([
    ['export/123456/*.json.gz', ['123456_2025-09-01_9#0.json.gz', '123456_2025-09-01_9#1.json.gz', '123456_2025-09-01_10#0.json.gz']],
    ['export/**/*_9#?.json.gz', ['123456_2025-09-01_9#0.json.gz', '123456_2025-09-01_9#1.json.gz']],
    ['export/*.{jsonl,ndjson}', ['A.ndjson', 'b.jsonl']],
    ['export/*', ['123456_2025-09-01_9#0.json.gz', '123456_2025-09-01_9#1.json.gz', '123456_2025-09-01_10#0.json.gz', 'A.ndjson', 'README.md', 'archive.zip', 'b.jsonl']],
  ])('expands the glob %s (a folder it matches is read like a directory)', async (pattern, expected) => {
    const dir = exportsFolder();
    const files = await expandInput(join(dir, pattern), JSON_LINES);
    expect(files.map((file) => file.split('/').pop())).toEqual(expected);
  });

  it('follows a link to a folder, from a directory or a glob, each folder once (a link back up ends)', async () => {
    const dir = tempDir();
    for (const file of ['real/2024/b.jsonl', 'exports/2023/a.jsonl']) {
      mkdirSync(join(dir, file, '..'), { recursive: true });
      writeFileSync(join(dir, file), '{}\n');
    }
    symlinkSync(join(dir, 'real/2024'), join(dir, 'exports/2024'));
    symlinkSync(join(dir, 'real/2024'), join(dir, 'exports/2024-again'));
    symlinkSync(join(dir, 'exports'), join(dir, 'exports/2023/loop'));
    const expected = ['exports/2023/a.jsonl', 'exports/2024/b.jsonl'];
    expect(relativeTo(dir)(await expandInput(join(dir, 'exports'), JSON_LINES))).toEqual(expected);
    expect(relativeTo(dir)(await expandInput(join(dir, 'exports/*/*.jsonl'), JSON_LINES))).toEqual(expected);
    expect(relativeTo(dir)(await expandInput(join(dir, 'exports/**/*.jsonl'), JSON_LINES))).toEqual(expected);
  });

  it('never reads completion markers (complete, _SUCCESS) from a directory or a glob', async () => {
    const dir = tempDir();
    const files = ['raw/123/2025/09/01/full_day/complete', 'raw/123/2025/09/01/full_day/part-0', 'raw/123/2025/09/01/full_day/part-1.json.gz', 'raw/_SUCCESS'];
    for (const file of files) {
      mkdirSync(join(dir, file, '..'), { recursive: true });
      writeFileSync(join(dir, file), file.endsWith('complete') || file.endsWith('_SUCCESS') ? '' : '{}\n');
    }
    expect(relativeTo(dir)(await expandInput(join(dir, 'raw'), JSON_LINES))).toEqual(['raw/123/2025/09/01/full_day/part-1.json.gz']);
    expect(relativeTo(dir)(await expandInput(join(dir, 'raw/*/*/*/*/full_day/*'), JSON_LINES))).toEqual(['raw/123/2025/09/01/full_day/part-0', 'raw/123/2025/09/01/full_day/part-1.json.gz']);
  });

  it('reads a hidden directory the user names', async () => {
    const dir = exportsFolder();
    expect(relativeTo(dir)(await expandInput(join(dir, 'export/.cache'), JSON_LINES))).toEqual(['export/.cache/old.json']);
  });

  it('keeps a file named explicitly, whatever its name, and a name with glob characters that exists', async () => {
    const dir = exportsFolder();
    writeFileSync(join(dir, 'odd[1].txt'), '{}\n');
    expect(await expandInput(join(dir, 'export/README.md'), JSON_LINES)).toEqual([join(dir, 'export/README.md')]);
    expect(await expandInput(join(dir, 'odd[1].txt'), JSON_LINES)).toEqual([join(dir, 'odd[1].txt')]);
    expect(await expandInput(join(dir, 'missing.json'), JSON_LINES)).toEqual([join(dir, 'missing.json')]);
  });

  it.each<[string, (dir: string) => string, RegExp]>([
    [
      'an empty directory',
      (dir) => {
        mkdirSync(join(dir, 'empty'));
        return join(dir, 'empty');
      },
      /no source files in this directory \(looked for names ending \.jsonl, \.ndjson, \.json, \.zip, optionally \.gz; it has no files\)/,
    ],
    [
      'a directory with unrelated files',
      (dir) => {
        mkdirSync(join(dir, 'docs'));
        writeFileSync(join(dir, 'docs/notes.md'), '');
        return join(dir, 'docs');
      },
      /it has 1 other file\(s\), e\.g\. .*notes\.md/,
    ],
    ['a glob that matches nothing', (dir) => join(dir, 'export/*.csv'), /no file matches this pattern/],
  ])('refuses %s with a clear message', async (_name, arg, message) => {
    const dir = exportsFolder();
    const promise = expandInput(arg(dir), JSON_LINES);
    await expect(promise).rejects.toBeInstanceOf(InputError);
    await expect(promise).rejects.toThrow(message);
  });
});
