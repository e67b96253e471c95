/**
 * The folder logic written once (src/sources/places/) gives the same answers wherever the files
 * lie: each folder case runs against a temporary directory and against the same tree uploaded
 * to a moto bucket, with the same expectations, through the CLI (in-process, one subprocess per
 * place for the run killed part-way).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeZip } from '../../scripts/zip-writer.mjs';
import { writeHeapFolder } from '../helpers/heap-layout.js';
import { useMoto } from '../helpers/moto-server.js';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { readStaging } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const motoServer = useMoto();
const BUCKET = 'one-way';
const RUN = '2024-01-01T00:00:00+00:00-2024-01-02T00:00:00+00:00';

function lines(from: number, rows: number): string {
  const out: string[] = [];
  for (let i = from; i < from + rows; i++) out.push(JSON.stringify({ event: `ev${i % 3}`, properties: { distinct_id: `u${i % 7}`, time: 1704067200 + i, $insert_id: `i-${i}` } }));
  return `${out.join('\n')}\n`;
}

/** The tree every case reads, written on disk and uploaded as is. */
function writeTree(root: string): void {
  const files: Record<string, string | Buffer> = {
    'glob/a/1.json': lines(0, 3),
    'glob/a/b/2.json': lines(10, 3),
    'glob/c/10.json': lines(20, 3),
    'glob/c/9.json': lines(30, 3),
    'glob/c/_SUCCESS': '',
    'glob/.hidden/3.json': lines(40, 3),
    'glob/notes.md': 'not data',
    'odd/events [1].json': lines(50, 2),
    'odd/events 1.json': lines(60, 2),
    // A batch export copied under another prefix: its manifest lists the keys the export wrote.
    [`batch/events/${RUN}_manifest.json`]: JSON.stringify({ files: [`exports/events/${RUN}_0.jsonl`, `exports/events/${RUN}_1.jsonl`] }),
    [`batch/events/${RUN}_0.jsonl`]: lines(70, 4),
    [`batch/events/${RUN}_1.jsonl`]: lines(80, 4),
    [`batch/events/${RUN}_2.jsonl`]: lines(90, 4),
    'zips/export.zip': makeZip([
      { name: 'day/b.json.gz', data: gzipSync(lines(100, 5)), method: 'store' },
      { name: 'day/a.json', data: Buffer.from(lines(110, 5)), method: 'deflate' },
    ]),
    'zips/empty.zip': makeZip([{ name: 'readme.md', data: Buffer.from('nothing'), method: 'store' }]),
    'big/events.json': lines(1_000, 3_000),
    'bad/good.json': lines(200, 6),
    'bad/binary.json': Buffer.from([0x7b, 0, 0, 0x7d, 0x0a]),
    'bad/table.json.gz': gzipSync(Buffer.concat([Buffer.from('PAR1'), Buffer.alloc(16), Buffer.from('PAR1')])),
  };
  for (const [path, body] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), body);
  }
  writeHeapFolder(join(root, 'heap'));
}

function filesBelow(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((path) => statSync(join(root, path)).isFile());
}

interface Where {
  name: string;
  /** The argument naming `path` below the tree. */
  at(path: string): string;
  /** A staged source's name below the tree. */
  below(source: string): string;
}

let tree = '';
const PLACES: Where[] = [
  { name: 'a directory', at: (path) => join(tree, path), below: (source) => relative(tree, source).split('\\').join('/') },
  { name: 'a bucket prefix', at: (path) => `s3://${BUCKET}/tree/${path}`, below: (source) => source.replace(`s3://${BUCKET}/tree/`, '') },
];

beforeAll(async () => {
  // The tree lives for the whole file (tempDir's folders go after each test).
  tree = join(mkdtempSync(join(tmpdir(), 'migrate-one-way-')), 'tree');
  writeTree(tree);
  const moto = motoServer();
  await moto.createBucket(BUCKET);
  const paths = filesBelow(tree);
  for (let i = 0; i < paths.length; i += 16) await Promise.all(paths.slice(i, i + 16).map((path) => moto.put(BUCKET, `tree/${path.split('\\').join('/')}`, readFileSync(join(tree, path)))));
  // The empty object a console's "Create folder" makes: the prefix stays a folder.
  await moto.put(BUCKET, 'tree/glob/', '');
}, 60_000);

afterAll(() => rmSync(dirname(tree), { recursive: true, force: true }));

async function stage(staging: string, args: string[], env: Record<string, string> = {}, from = 'mixpanel'): Promise<CliResult> {
  const result = await runCli(['export-source', '--staging', staging, '--from', from, ...args], { env: { ...motoServer().env, ...env } });
  expect(result.stderr).not.toMatch(/\n\s+at /);
  return result;
}

/** Rows staged from each source read to its end, by its name below the tree. */
function stagedBySource(staging: string, where: Where): Record<string, number> {
  const rows = readStaging(staging, (db) =>
    db.prepare(`SELECT s.path AS path, count(e.seq) AS n FROM sources s JOIN source_reads r ON r.source_id = s.id JOIN events e ON e.read_id = r.id GROUP BY s.path`).all(),
  ) as Array<{ path: string; n: number }>;
  return Object.fromEntries(rows.map((row) => [where.below(row.path), row.n]));
}

interface FolderCase {
  name: string;
  /** The format read: Mixpanel's JSON lines unless said. */
  from?: string;
  args(where: Where): string[];
  code: number;
  /** Rows staged per source below the tree. */
  staged?: Record<string, number>;
  stderr?: RegExp[];
}

/** The Heap layout's data files (heap-layout.ts): sync_1's pageviews are left out, sync_2 resynced them whole. */
const HEAP_STAGED = {
  'heap/sync_1/signup_click/part-00000-0c5e1a7f-12b2d-c000.avro': 1,
  'heap/sync_1/user_migrations/part-00000-0c5e1a7f-15b2d-c000.avro': 1,
  'heap/sync_1/users/part-00000-0c5e1a7f-5b2d-c000.avro': 3,
  'heap/sync_2/pageviews/part-00000-0c5e2a7f-9b2d-c000.avro': 2,
  'heap/sync_2/pageviews/part-00001-0c5e2a7f-9b2d-c000.avro': 1,
  'heap/sync_2/signup_click/part-00000-0c5e2a7f-12b2d-c000.avro': 1,
  'heap/sync_2/users/part-00000-0c5e2a7f-5b2d-c000.avro': 1,
};

const CASES: FolderCase[] = [
  {
    name: 'a glob with ** reads what it matches in natural order, hidden folders and markers left out',
    args: (where) => [where.at('glob/**/*.json')],
    code: 0,
    staged: { 'glob/a/1.json': 3, 'glob/a/b/2.json': 3, 'glob/c/9.json': 3, 'glob/c/10.json': 3 },
  },
  {
    name: 'a trailing ** reads every folder below as a folder is read (never a file above it, whatever its name)',
    args: (where) => [where.at('glob/**'), where.at('glob/*/**')],
    code: 0,
    staged: { 'glob/a/1.json': 3, 'glob/a/b/2.json': 3, 'glob/c/9.json': 3, 'glob/c/10.json': 3 },
  },
  {
    name: 'a name with glob characters that is a file is read itself',
    args: (where) => [where.at('odd/events [1].json')],
    code: 0,
    staged: { 'odd/events [1].json': 2 },
  },
  {
    name: "a copied batch export: its manifest's original keys map to the files beside it; a file of its run it does not list is left out",
    args: (where) => [where.at('batch')],
    code: 0,
    staged: { [`batch/events/${RUN}_0.jsonl`]: 4, [`batch/events/${RUN}_1.jsonl`]: 4 },
    stderr: [new RegExp(`batch/events/${RUN.replace(/\+/g, '\\+')}_2\\.jsonl: left out, its run's manifest does not list it`)],
  },
  {
    name: "a glob taking some of a batch export run's files: the files it leaves out are there, not missing",
    args: (where) => [where.at('batch/events/*_0.jsonl')],
    code: 0,
    staged: { [`batch/events/${RUN}_0.jsonl`]: 4 },
  },
  {
    name: 'a prefix named with its trailing / is read as a folder, even where a console made an empty object of that name',
    args: (where) => [where.at('glob/')],
    code: 0,
    staged: { 'glob/a/1.json': 3, 'glob/a/b/2.json': 3, 'glob/c/9.json': 3, 'glob/c/10.json': 3 },
  },
  {
    name: "a zip's entries each a source; a zip with none the format reads skipped with a notice",
    args: (where) => [where.at('zips/')],
    code: 0,
    staged: { 'zips/export.zip!day/a.json': 5, 'zips/export.zip!day/b.json.gz': 5 },
    stderr: [/zips\/empty\.zip: skipped, a zip archive with no source files in it/],
  },
  {
    name: 'files found in a folder that cannot be read are warned about and left out, the others staged, then the run fails',
    args: (where) => [where.at('bad')],
    code: 3,
    staged: { 'bad/good.json': 6 },
    stderr: [
      /warning: .*bad\/binary\.json: looks like a binary file.*staging the folder's other files/,
      /warning: .*bad\/table\.json\.gz: is a gzipped Parquet file.*staging the folder's other files/,
    ],
  },
  {
    name: 'a Heap Connect folder: its data files planned from its manifests, a dump a full resync replaced left out',
    from: 'heap',
    args: (where) => [where.at('heap')],
    code: 0,
    staged: HEAP_STAGED,
  },
];

describe.each(PLACES)('one way to a file: $name', (where) => {
  it.each(CASES)('$name', async (folderCase) => {
    const staging = join(tempDir(), 'm.db');
    const result = await stage(staging, folderCase.args(where), {}, folderCase.from);
    expect(result.code, result.stderr).toBe(folderCase.code);
    if (folderCase.staged !== undefined) expect(stagedBySource(staging, where)).toEqual(folderCase.staged);
    for (const pattern of folderCase.stderr ?? []) expect(result.stderr).toMatch(pattern);
  });

  it('a rerun over what was staged opens nothing: every source unchanged', async () => {
    const staging = join(tempDir(), 'm.db');
    expect((await stage(staging, [where.at('glob/')])).code).toBe(0);
    const again = await stage(staging, [where.at('glob/'), '--json']);
    expect(again.code, again.stderr).toBe(0);
    const summary = JSON.parse(again.stdout) as { files: unknown[]; unchanged: string[] };
    expect(summary.files).toEqual([]);
    expect(summary.unchanged.map(where.below)).toEqual(['glob/a/1.json', 'glob/a/b/2.json', 'glob/c/9.json', 'glob/c/10.json']);
  });

  it('a read killed part-way is resumed: every row once', async () => {
    const staging = join(tempDir(), 'm.db');
    const pieces = { MIGRATE_TEST_PIECE_CHARS: String(64 * 1024) };
    const killed = await stage(staging, [where.at('big/')], { ...pieces, MIGRATE_TEST_KILL_AFTER_PIECES: '2' });
    expect(killed.signal).toBe('SIGKILL');
    const resumed = await stage(staging, [where.at('big/')], pieces);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(stagedBySource(staging, where)).toEqual({ 'big/events.json': 3_000 });
  });
});

describe('one way to a file: on disk', () => {
  it('a dangling symbolic link in a folder is told and the run fails, not skipped unseen', async () => {
    const dir = join(tempDir(), 'linked');
    mkdirSync(dir);
    writeFileSync(join(dir, 'good.json'), lines(0, 2));
    symlinkSync(join(dir, 'nowhere.json'), join(dir, 'gone.json'));
    const staging = join(tempDir(), 'm.db');
    const result = await stage(staging, [dir]);
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(/gone\.json/);
    expect(stagedBySource(staging, { name: 'linked', at: (path) => path, below: (source) => relative(dir, source) })).toEqual({ 'good.json': 2 });
  });
});
