/**
 * Which files of a Heap Connect folder are read, and in what order. Heap writes each sync's
 * data under `sync_<dump_id>/<table>/` and, once the sync is complete, its manifest under
 * `manifests/`: the dump's id (ids grow with each sync), and per table its files (full bucket
 * addresses) and whether the dump adds to the table (`incremental: true`) or holds all of it
 * again (`false`, after an event's definition changed). So:
 * - only dumps with a manifest are read; a sync folder without one is still being written;
 * - a table's dumps before its latest full dump are replaced by it: their files are not read,
 *   and rows staged from them earlier are withdrawn (see stage-sources/heap-folder.ts);
 * - the files are read in dump order, then table, then part number, whatever order the
 *   manifests were found in;
 * - a file a manifest lists that is not in the folder is an error naming it.
 * The `sessions` table is not read: Heap copies a session's properties onto each of its events,
 * and a session starts with its first event, which the event tables hold (heap-session.ts and
 * passes/heap-sessions.ts); nor is
 * `all_events`, where a warehouse sync has one, which repeats the event tables. Pure.
 */
import { z } from 'zod';
import { naturalCompare } from '../input-names.js';

const ManifestSchema = z.object({
  dump_id: z.number().int().nonnegative(),
  tables: z.array(
    z.object({
      name: z.string().min(1),
      files: z.array(z.string()),
      incremental: z.boolean(),
      columns: z.array(z.unknown()).optional(),
    }),
  ),
});

/** Tables not read, with why. */
export const HEAP_TABLES_NOT_READ: Readonly<Record<string, string>> = {
  sessions: "Heap copies each session's properties onto its events, and a session starts with its first event",
  all_events: 'it repeats the rows of the event tables, which are read themselves',
};

/** A data file to read: its path below the folder (`sync_<id>/<table>/<name>`), its dump and table. */
export interface HeapFile {
  path: string;
  dumpId: number;
  table: string;
}

export interface HeapPlan {
  /** In the order they are read. */
  files: HeapFile[];
  /** Files of dumps a later full dump of their table replaced: not read, and their earlier rows withdrawn. */
  replaced: HeapFile[];
  /** Listed by a manifest and not in the folder, with the manifest listing each. */
  missing: Array<{ path: string; manifest: string }>;
  /** Tables not read, and why. */
  notices: string[];
  /** Sync folders without a manifest: data there is not read yet. */
  warnings: string[];
}

const DATA_PATH = /sync_(\d+)\/([^/]+)\/([^/]+)$/;

/** The path below the folder a manifest's address stands for (`s3://bucket/prefix/sync_1/t/f.avro` → `sync_1/t/f.avro`). */
export function localPath(address: string): string | undefined {
  const match = DATA_PATH.exec(address.replace(/\\/g, '/'));
  return match === null ? undefined : match[0];
}

export type ManifestRead = { ok: true; dumpId: number; tables: Array<{ name: string; files: string[]; incremental: boolean }> } | { ok: false; message: string };

/** One manifest's text, checked. */
export function readManifest(text: string): ManifestRead {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, message: `not JSON (${(error as Error).message})` };
  }
  const parsed = ManifestSchema.safeParse(value);
  if (!parsed.success) return { ok: false, message: parsed.error.issues.map((issue) => `${issue.path.join('.') || '(top)'}: ${issue.message}`).join('; ') };
  return { ok: true, dumpId: parsed.data.dump_id, tables: parsed.data.tables };
}

function filesText(files: number): string {
  return `${files} file${files === 1 ? '' : 's'}`;
}

function compareFiles(a: HeapFile, b: HeapFile): number {
  return a.dumpId - b.dumpId || (a.table < b.table ? -1 : a.table > b.table ? 1 : 0) || naturalCompare(a.path, b.path);
}

/** The latest full dump of each table. */
function latestFullDumps(manifests: ReadonlyArray<{ read: Extract<ManifestRead, { ok: true }> }>): Map<string, number> {
  const latest = new Map<string, number>();
  for (const { read } of manifests) for (const table of read.tables) if (!table.incremental && read.dumpId > (latest.get(table.name) ?? -1)) latest.set(table.name, read.dumpId);
  return latest;
}

/**
 * The plan for a folder: its manifests (name and checked content) and the data files found in it
 * (paths below the folder, `/`-separated).
 */
export function planHeapFolder(manifests: ReadonlyArray<{ name: string; read: Extract<ManifestRead, { ok: true }> }>, found: readonly string[]): HeapPlan {
  const present = new Set(found);
  const latest = latestFullDumps(manifests);
  const plan: HeapPlan = { files: [], replaced: [], missing: [], notices: [], warnings: [] };
  const notRead = new Map<string, number>();
  const seen = new Set<string>();
  for (const { name, read } of manifests) {
    for (const table of read.tables) {
      for (const address of table.files) {
        const path = localPath(address) ?? address;
        if (seen.has(path)) continue;
        seen.add(path);
        const file = { path, dumpId: read.dumpId, table: table.name };
        if (Object.hasOwn(HEAP_TABLES_NOT_READ, table.name)) notRead.set(table.name, (notRead.get(table.name) ?? 0) + 1);
        else if (read.dumpId < (latest.get(table.name) ?? -1)) plan.replaced.push(file);
        else if (!present.has(path)) plan.missing.push({ path, manifest: name });
        else plan.files.push(file);
      }
    }
  }
  plan.files.sort(compareFiles);
  plan.replaced.sort(compareFiles);
  for (const [table, files] of notRead) plan.notices.push(`Heap table ${table} not read (${filesText(files)}): ${HEAP_TABLES_NOT_READ[table]}`);
  plan.warnings.push(...unlistedSyncs(manifests, found));
  return plan;
}

/** Notices for the sync folders that hold data files but have no manifest yet. */
function unlistedSyncs(manifests: ReadonlyArray<{ read: Extract<ManifestRead, { ok: true }> }>, found: readonly string[]): string[] {
  const dumps = new Set(manifests.map((m) => m.read.dumpId));
  const waiting = new Map<number, number>();
  for (const path of found) {
    const match = DATA_PATH.exec(path);
    if (match === null) continue;
    const dumpId = Number(match[1]);
    if (!dumps.has(dumpId)) waiting.set(dumpId, (waiting.get(dumpId) ?? 0) + 1);
  }
  return [...waiting]
    .sort((a, b) => a[0] - b[0])
    .map(([dumpId, files]) => `sync_${dumpId} not read (${filesText(files)}): it has no manifest yet, so Heap has not finished writing it; run again once manifests/ lists it`);
}
