/**
 * The objects of bucket sources as each run listed them (address, bucket, key, size, ETag), and
 * status's view of them: per prefix, how many are done, partial (resumed by the next run) and
 * not yet read. An object's reads are recorded under its address, a zip object's entries under
 * `<address>!<entry>`.
 */
import type { BucketObjectRecord } from '../sources/open-input.js';
import type { StagingStore } from './staging-store.js';

/** Records the objects a run is about to read; a key listed again takes its latest size, ETag, version and endpoint. */
export function recordBucketObjects(store: StagingStore, objects: readonly BucketObjectRecord[], listedAt: string): void {
  if (objects.length === 0) return;
  const upsert = store.db.prepare(
    `INSERT INTO bucket_objects (url, bucket, key, size_bytes, etag, version_id, listed_at, endpoint) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (url) DO UPDATE SET size_bytes = excluded.size_bytes, etag = excluded.etag, version_id = excluded.version_id, listed_at = excluded.listed_at,
       endpoint = excluded.endpoint`,
  );
  store.transaction(() => {
    for (const o of objects) upsert.run(o.url, o.bucket, o.key, o.sizeBytes, o.etag, o.versionId ?? null, listedAt, o.endpoint);
  });
}

/** An object recorded as listed at one endpoint, now listed at another with other content. */
export interface EndpointClash {
  url: string;
  recordedEndpoint: string;
  endpoint: string;
}

/**
 * Objects whose address was recorded at another endpoint and whose size or ETag now differ:
 * another store's object under the same key, not a new version of the one staged. The same
 * size and ETag at another address of the store (a proxy, a new port) are the same object.
 */
export function endpointClashes(store: StagingStore, objects: readonly BucketObjectRecord[]): EndpointClash[] {
  const recorded = store.db.prepare('SELECT endpoint, size_bytes AS sizeBytes, etag FROM bucket_objects WHERE url = ?');
  const clashes: EndpointClash[] = [];
  for (const o of objects) {
    const row = recorded.get(o.url) as { endpoint: string | null; sizeBytes: number; etag: string } | undefined;
    if (row === undefined || row.endpoint === null || row.endpoint === o.endpoint) continue;
    if (row.sizeBytes !== o.sizeBytes || row.etag !== o.etag) clashes.push({ url: o.url, recordedEndpoint: row.endpoint, endpoint: o.endpoint });
  }
  return clashes;
}

export interface BucketPrefixReport {
  /** `s3://bucket/folder/`: the objects' common folder. */
  prefix: string;
  objects: number;
  done: number;
  /** Interrupted part-way: the next run over it resumes them. */
  partial: number;
  /** Listed, not read yet (or whose read failed). */
  pending: number;
  sizeBytes: number;
}

type ObjectState = 'done' | 'partial' | 'pending';

/** The state of an object from the states of its reads (one, or one per zip entry). */
function objectState(states: readonly string[]): ObjectState {
  if (states.length === 0) return 'pending';
  if (states.some((s) => s === 'partial' || s === 'interrupted')) return 'partial';
  return states.every((s) => s === 'done') ? 'done' : 'pending';
}

/**
 * Objects per prefix, pure: `readStates` maps each source path to its latest read's state.
 */
export function bucketPrefixes(objects: ReadonlyArray<{ url: string; sizeBytes: number }>, readStates: ReadonlyMap<string, string>): BucketPrefixReport[] {
  const entries = new Map<string, string[]>();
  for (const [path, state] of readStates) {
    const bang = path.indexOf('!');
    if (bang === -1) continue;
    const list = entries.get(path.slice(0, bang)) ?? [];
    list.push(state);
    entries.set(path.slice(0, bang), list);
  }
  const byPrefix = new Map<string, BucketPrefixReport>();
  for (const o of objects) {
    const prefix = o.url.slice(0, o.url.lastIndexOf('/') + 1);
    const report = byPrefix.get(prefix) ?? { prefix, objects: 0, done: 0, partial: 0, pending: 0, sizeBytes: 0 };
    const own = readStates.get(o.url);
    report.objects++;
    report.sizeBytes += o.sizeBytes;
    report[objectState(own === undefined ? (entries.get(o.url) ?? []) : [own])]++;
    byPrefix.set(prefix, report);
  }
  return [...byPrefix.values()].sort((a, b) => (a.prefix < b.prefix ? -1 : a.prefix > b.prefix ? 1 : 0));
}

export function listedBucketObjects(store: StagingStore): Array<{ url: string; sizeBytes: number }> {
  // A file of an older version read as it is (read-only) has no such table: it read no buckets.
  const exists = store.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'bucket_objects'").get();
  if (exists === undefined) return [];
  return store.db.prepare('SELECT url, size_bytes AS sizeBytes FROM bucket_objects ORDER BY url').all() as Array<{ url: string; sizeBytes: number }>;
}
