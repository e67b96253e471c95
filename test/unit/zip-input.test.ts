import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { makeZip } from '../../scripts/zip-writer.mjs';
import { InputError } from '../../src/errors.js';
import type { SourceInput } from '../../src/sources/open-input.js';
import { openInputs, openZipInputs } from '../../src/sources/zip-input.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const JSON_LINES = ['.jsonl', '.ndjson', '.json'];
const hour = (n: number) => `{"event_type":"e","n":${n},"city":"München"}\n`.repeat(3);

function zipFile(entries: Parameters<typeof makeZip>[0], name = 'export.zip'): string {
  const path = join(tempDir(), name);
  writeFileSync(path, makeZip(entries));
  return path;
}

async function textOf(input: SourceInput): Promise<string> {
  let text = '';
  for await (const chunk of input.text) text += chunk;
  return text;
}

async function closeAll(inputs: SourceInput[]): Promise<void> {
  await Promise.all(inputs.map((input) => input.close?.()));
}

describe('zip archives', () => {
  it('gives one input per entry the format reads, in natural order, named archive!entry', async () => {
    const path = zipFile([
      { name: 'p/p_2025-09-01_10#0.json.gz', data: gzipSync(hour(10)) },
      { name: 'p/p_2025-09-01_9#0.json.gz', data: gzipSync(hour(9)) },
      { name: 'p/', data: Buffer.alloc(0) },
      { name: 'plain.json', data: Buffer.from(hour(1)), method: 'deflate' },
      { name: '.DS_Store', data: Buffer.from([0, 0, 0, 1]) },
      { name: '__MACOSX/p/._p_2025-09-01_9#0.json.gz', data: Buffer.from([0, 5, 22, 7]) },
      { name: 'notes.txt', data: Buffer.from('not an export') },
    ]);
    const inputs = await openZipInputs(path, JSON_LINES);
    try {
      expect(inputs.map((i) => i.displayName)).toEqual([`${path}!p/p_2025-09-01_9#0.json.gz`, `${path}!p/p_2025-09-01_10#0.json.gz`, `${path}!plain.json`]);
      expect(inputs.map((i) => i.path.slice(path.length))).toEqual(['!p/p_2025-09-01_9#0.json.gz', '!p/p_2025-09-01_10#0.json.gz', '!plain.json']);
      expect(inputs.map((i) => i.compressed)).toEqual([true, true, false]);
      expect(await textOf(inputs[0]!)).toBe(hour(9));
      expect(await textOf(inputs[2]!)).toBe(hour(1));
      expect(inputs[0]!.fingerprint()).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(inputs[1]!.fingerprint()).toBeUndefined();
    } finally {
      await closeAll(inputs);
    }
  });

  it('recognises a zip by its content, and opens any other file as one input', async () => {
    const zipped = zipFile([{ name: 'a.json', data: Buffer.from(hour(1)) }], 'download.dat');
    const zipInputs = await openInputs(zipped, JSON_LINES);
    await closeAll(zipInputs);
    expect(zipInputs.map((i) => i.displayName)).toEqual([`${zipped}!a.json`]);
    const plain = join(tempDir(), 'a.json');
    writeFileSync(plain, hour(2));
    const [single] = await openInputs(plain, JSON_LINES);
    expect(await textOf(single!)).toBe(hour(2));
  });

  it('fails a large entry whose bytes do not match its CRC-32 while reading it, naming the entry', async () => {
    const big = Buffer.from(hour(1).repeat(2000)); // past the part checked before reading
    const path = join(tempDir(), 'damaged.zip');
    writeFileSync(path, flipDataBit(makeZip([{ name: 'a.json', data: big }]), 'a.json', big.length - 10));
    const inputs = await openZipInputs(path, JSON_LINES);
    try {
      await expect(textOf(inputs[0]!)).rejects.toThrow(/damaged\.zip!a\.json: reading failed part-way \(CRC-32 mismatch/);
    } finally {
      await closeAll(inputs);
    }
  });

  it.each<[string, () => Buffer, RegExp]>([
    ['a truncated archive', () => makeZip([{ name: 'a.json', data: Buffer.from(hour(1)) }]).subarray(0, 60), /x\.zip: is not a readable zip archive/],
    [
      'an archive with no source files',
      () => makeZip([{ name: 'readme.md', data: Buffer.from('hi') }]),
      /x\.zip: no source files in this zip archive \(looked for names ending \.jsonl, \.ndjson, \.json, optionally \.gz\)/,
    ],
    ['a zip inside the zip', () => makeZip([{ name: 'inner.zip', data: makeZip([]) }]), /x\.zip!inner\.zip: a zip archive inside a zip archive/],
    ['a binary entry', () => makeZip([{ name: 'a.json', data: Buffer.from([1, 0, 2, 0]) }]), /x\.zip!a\.json: looks like a binary file/],
    [
      'a gzip entry that is not gzip inside',
      () => makeZip([{ name: 'a.json.gz', data: Buffer.concat([Buffer.from([0x1f, 0x8b, 8]), Buffer.alloc(20, 7)]) }]),
      /x\.zip!a\.json\.gz: is not a valid gzip file/,
    ],
    ['an encrypted entry', () => encrypted(makeZip([{ name: 'a.json', data: Buffer.from(hour(1)), method: 'deflate' }])), /x\.zip!a\.json: cannot be read \(encrypted/],
    [
      'a small entry whose bytes do not match its CRC-32',
      () => flipDataBit(makeZip([{ name: 'a.json', data: Buffer.from(hour(1)) }]), 'a.json'),
      /x\.zip!a\.json: cannot be read from the archive \(CRC-32 mismatch: the entry is damaged\)/,
    ],
  ])('refuses %s before any row is read', async (_name, bytes, message) => {
    const path = join(tempDir(), 'x.zip');
    writeFileSync(path, bytes());
    const promise = openZipInputs(path, JSON_LINES);
    await expect(promise).rejects.toBeInstanceOf(InputError);
    await expect(promise).rejects.toThrow(message);
  });
});

/** Flips one bit of the first entry's stored data, `at` bytes into it. */
function flipDataBit(zip: Buffer, name: string, at = 5): Buffer {
  const out = Buffer.from(zip);
  out[30 + Buffer.byteLength(name) + at]! ^= 0x01;
  return out;
}

/** Sets the "encrypted" flag of the first entry, in its local and central headers. */
function encrypted(zip: Buffer): Buffer {
  const out = Buffer.from(zip);
  out.writeUInt16LE(out.readUInt16LE(6) | 1, 6);
  const central = out.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
  out.writeUInt16LE(out.readUInt16LE(central + 8) | 1, central + 8);
  return out;
}
