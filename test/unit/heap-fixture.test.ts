/**
 * fixtures/heap is the folder test/helpers/heap-layout.ts writes, byte for byte: the sample a
 * user can stage (`export-source --from heap fixtures/heap`) is the one the tests check.
 * `WRITE_HEAP_FIXTURE=1 npx vitest run test/unit/heap-fixture.test.ts` writes it again.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';
import { writeHeapFolder } from '../helpers/heap-layout.js';
import { useTempDir } from '../helpers/temp-dir.js';

const FIXTURE = join(import.meta.dirname, '..', '..', 'fixtures', 'heap');
const tempDir = useTempDir();

function filesBelow(root: string): string[] {
  return (readdirSync(root, { recursive: true, withFileTypes: true }) as Array<{ isFile(): boolean; name: string; parentPath: string }>)
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).replace(/\\/g, '/'))
    .sort();
}

it('fixtures/heap is what the test layout writes', () => {
  if (process.env.WRITE_HEAP_FIXTURE === '1') {
    rmSync(FIXTURE, { recursive: true, force: true });
    writeHeapFolder(FIXTURE);
  }
  const written = join(tempDir(), 'heap');
  writeHeapFolder(written);
  expect(filesBelow(FIXTURE)).toEqual(filesBelow(written));
  for (const path of filesBelow(written)) expect(readFileSync(join(FIXTURE, path)).equals(readFileSync(join(written, path))), path).toBe(true);
});
