import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { saveFile, serverFileName } from '../../src/management/save-file.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();

describe('serverFileName', () => {
  it.each([
    ['export-events-per-day-2025-10-14-093005.png', 'export-events-per-day-2025-10-14-093005.png'],
    ['../../etc/passwd', 'passwd'],
    ['..\\..\\windows\\x.png', 'x.png'],
    ['/absolute/y.csv', 'y.csv'],
    ['..', 'export'],
    ['', 'export'],
  ])('%j -> %s', (name, expected) => expect(serverFileName(name)).toBe(expected));
});

describe('saveFile', () => {
  it('writes whole files and replaces one only when asked', () => {
    const file = join(tempDir(), 'out.csv');
    expect(saveFile(file, Buffer.from('a'), false)).toBe(file);
    expect(() => saveFile(file, Buffer.from('b'), false)).toThrow(`${file} exists already`);
    expect(readFileSync(file, 'utf8')).toBe('a');
    saveFile(file, Buffer.from('c'), true);
    expect(readFileSync(file, 'utf8')).toBe('c');
  });

  it('names the file when it cannot be written', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'not-a-dir'), '');
    expect(() => saveFile(join(dir, 'not-a-dir', 'x.png'), Buffer.from('x'), false)).toThrow(/cannot write .*not-a-dir\/x\.png \(ENOTDIR\)/);
  });
});
