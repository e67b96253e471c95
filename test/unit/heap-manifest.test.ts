/** Which files of a Heap Connect folder are read, and in what order (src/sources/vendors/heap-manifest.ts). */
import { describe, expect, it } from 'vitest';
import { localPath, planHeapFolder, readManifest, type ManifestRead } from '../../src/sources/vendors/heap-manifest.js';

type Table = { name: string; files: string[]; incremental: boolean };
const file = (dump: number, table: string, part: number) => `sync_${dump}/${table}/part-${String(part).padStart(5, '0')}-9f1e-c000.avro`;
const s3 = (path: string) => `s3://heap-rs3-acme/${path}`;
const manifest = (dumpId: number, tables: Table[]) => ({ name: `manifests/${dumpId}.json`, read: { ok: true, dumpId, tables } as Extract<ManifestRead, { ok: true }> });
const table = (dump: number, name: string, parts: number, incremental = true): Table => ({ name, incremental, files: Array.from({ length: parts }, (_, i) => s3(file(dump, name, i))) });

describe('readManifest', () => {
  it.each([
    ['{"dump_id": 5, "tables": [{"name": "users", "files": [], "incremental": true, "columns": ["user_id"]}], "property_definitions": "s3://b/p.json"}', { ok: true, dumpId: 5 }],
    ['{"tables": []}', { ok: false }],
    ['{"dump_id": 5, "tables": [{"name": "users", "files": []}]}', { ok: false }],
    ['not json', { ok: false }],
  ])('%s', (text, expected) => {
    expect(readManifest(text)).toMatchObject(expected);
  });

  it('names the field at fault', () => {
    const read = readManifest('{"dump_id": "5", "tables": []}');
    expect(!read.ok && read.message).toContain('dump_id');
  });
});

describe('localPath', () => {
  it.each([
    ['s3://heap-rs3-acme/sync_1/users/part-00000-x-c000.avro', 'sync_1/users/part-00000-x-c000.avro'],
    ['s3://heap-rs3-acme/some/prefix/sync_22/pageviews/p.avro', 'sync_22/pageviews/p.avro'],
    ['s3://heap-rs3-acme/elsewhere/p.avro', undefined],
  ])('%s', (address, path) => {
    expect(localPath(address)).toBe(path);
  });
});

describe('planHeapFolder', () => {
  const found = [file(1, 'pageviews', 0), file(1, 'pageviews', 1), file(1, 'users', 0), file(2, 'pageviews', 0), file(2, 'users', 0), file(2, 'sessions', 0), file(3, 'pageviews', 0)];
  const manifests = [manifest(2, [table(2, 'pageviews', 1, false), table(2, 'users', 1), table(2, 'sessions', 1)]), manifest(1, [table(1, 'pageviews', 2), table(1, 'users', 1)])];

  it('reads dumps in dump order whatever the manifests order; a full dump replaces its table only', () => {
    for (const order of [manifests, [...manifests].reverse()]) {
      const plan = planHeapFolder(order, found);
      expect(plan.files.map((f) => f.path)).toEqual([file(1, 'users', 0), file(2, 'pageviews', 0), file(2, 'users', 0)]);
      expect(plan.replaced.map((f) => f.path)).toEqual([file(1, 'pageviews', 0), file(1, 'pageviews', 1)]);
      expect(plan.missing).toEqual([]);
    }
  });

  it('says why the sessions table and a sync without a manifest are not read', () => {
    const plan = planHeapFolder(manifests, found);
    expect(plan.notices).toEqual([expect.stringMatching(/^Heap table sessions not read \(1 file\)/)]);
    expect(plan.warnings).toEqual([expect.stringMatching(/^sync_3 not read \(1 file\): it has no manifest yet/)]);
  });

  it('orders parts by number, not by text', () => {
    const parts = [2, 10, 1].map((n) => file(4, 'clicks', n));
    const plan = planHeapFolder([manifest(4, [{ name: 'clicks', incremental: true, files: parts.map(s3) }])], parts);
    expect(plan.files.map((f) => f.path)).toEqual([1, 2, 10].map((n) => file(4, 'clicks', n)));
  });

  it('names a listed file that is missing, with its manifest', () => {
    const plan = planHeapFolder(
      manifests,
      found.filter((path) => path !== file(2, 'users', 0)),
    );
    expect(plan.missing).toEqual([{ path: file(2, 'users', 0), manifest: 'manifests/2.json' }]);
    expect(plan.files.map((f) => f.path)).not.toContain(file(2, 'users', 0));
  });

  it('does not ask for the files of a replaced dump', () => {
    const plan = planHeapFolder(
      manifests,
      found.filter((path) => !path.startsWith('sync_1/pageviews')),
    );
    expect(plan.missing).toEqual([]);
  });
});
