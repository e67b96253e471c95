/**
 * The persons a chunk of events touches, so that the dispatcher can keep a person's events in
 * time order while several requests are in flight. PostHog stores on each event a snapshot of
 * its person's properties as they are when it is ingested, and the last `$set` processed wins
 * whatever the timestamps: two chunks that share a person, when either changes that person
 * (`$set`, `$set_once`, `$unset`, a merge, or a location: PostHog's GeoIP step sets the
 * person's `$geoip_*` from every event it locates), must be processed in send order. Chunks that only
 * read a person (no person properties of their own) may go side by side.
 *
 * Read from each event's JSON bytes without parsing the properties: a few byte searches per
 * event, on the reading thread; persons as hashes of their ids. A search may find a key nested
 * deeper than the top level, and two ids may share a hash: a chunk then waits when it need not,
 * which costs time, never order.
 * Pure.
 */

export interface ChunkPersons {
  /** Every person of the chunk's events (by distinct_id, linked ids as one), as personHash values. */
  all: Uint32Array;
  /** The persons some event of the chunk changes. */
  changed: Uint32Array;
}

/**
 * The person of a distinct_id, both as personHash values: the person's as far as the staged
 * links tell, the id's own when unlinked.
 */
export type PersonOf = (idHash: number) => number;

/**
 * A distinct_id as a number: FNV-1a over the bytes of its JSON string's text, as escaped (JSON
 * escapes a string one way). Two persons with the same hash only make a chunk wait when it
 * need not; numbers cross the threads and fill sets far cheaper than the ids.
 */
export function personHash(distinctId: string): number {
  const text = Buffer.from(JSON.stringify(distinctId), 'utf8');
  return hashBytes(text, 1, text.length - 1);
}

function hashBytes(bytes: Buffer, from: number, to: number): number {
  let hash = 0x811c9dc5;
  for (let i = from; i < to; i++) hash = Math.imul(hash ^ bytes[i]!, 0x01000193);
  return hash >>> 0;
}

const DISTINCT_ID_KEY = Buffer.from(',"distinct_id":"', 'latin1');
const ANON_ID_KEY = Buffer.from('"$anon_distinct_id":"', 'latin1');
const EVENT_KEY = Buffer.from('","event":"', 'latin1');
/** Where every key of PostHog's own begins. */
const DOLLAR_KEY = Buffer.from('"$', 'latin1');
/** Keys of person properties an event carries for its person. */
const CHANGE_KEYS = ['"$set"', '"$set_once"', '"$unset"'].map((key) => Buffer.from(key, 'latin1'));
/** Events that change who a person is (merges): ordered like changes. */
const MERGE_EVENTS = ['$identify', '$create_alias', '$merge_dangerously'].map((name) => Buffer.from(`${name}"`, 'latin1'));
/** What the staging rules put on every row PostHog must not locate (see events/ingestion-rules.ts). */
const NOT_LOCATED = Buffer.from('"$geoip_disable":true', 'latin1');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The hash of the JSON string whose text starts at `from` (after its opening quote) in `json`. */
function stringHashAt(json: Buffer, from: number): number | undefined {
  for (let i = from; i < json.length; i++) {
    const c = json[i]!;
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return hashBytes(json, from, i);
  }
  return undefined;
}

const startsWith = (bytes: Buffer, at: number, prefix: Buffer): boolean => at + prefix.length <= bytes.length && bytes.compare(prefix, 0, prefix.length, at, at + prefix.length) === 0;

/** Whether the event's JSON changes its person; one pass over its `"$` keys. */
function changesPerson(event: Buffer): boolean {
  const name = event.indexOf(EVENT_KEY);
  if (name !== -1 && MERGE_EVENTS.some((merge) => startsWith(event, name + EVENT_KEY.length, merge))) return true;
  let located = true;
  for (let at = event.indexOf(DOLLAR_KEY); at !== -1; at = event.indexOf(DOLLAR_KEY, at + DOLLAR_KEY.length)) {
    if (CHANGE_KEYS.some((key) => startsWith(event, at, key))) return true;
    if (startsWith(event, at, NOT_LOCATED)) located = false;
  }
  return located;
}

/** The persons of a chunk whose events' JSON is `json`, each ending (exclusive) at `ends[i]`, joined by commas. */
export function chunkPersons(json: Buffer, ends: readonly number[], personOf: PersonOf): ChunkPersons {
  const all = new Set<number>();
  const changed = new Set<number>();
  for (let i = 0, start = 0; i < ends.length; start = ends[i]! + 1, i++) {
    // A view of the one event: searches stop at its end.
    const event = json.subarray(start, ends[i]);
    const at = event.indexOf(DISTINCT_ID_KEY);
    const id = at === -1 ? undefined : stringHashAt(event, at + DISTINCT_ID_KEY.length);
    if (id === undefined) continue;
    const person = personOf(id);
    all.add(person);
    if (!changesPerson(event)) continue;
    changed.add(person);
    // A merge changes the anonymous id's person too.
    const anon = event.indexOf(ANON_ID_KEY);
    const anonId = anon === -1 ? undefined : stringHashAt(event, anon + ANON_ID_KEY.length);
    if (anonId !== undefined) {
      all.add(personOf(anonId));
      changed.add(personOf(anonId));
    }
  }
  return { all: Uint32Array.from(all), changed: Uint32Array.from(changed) };
}

/** Whether a chunk touching `later` must wait for one touching `earlier` (see the file's comment). */
export function mustFollow(later: ChunkPersons, earlier: { all: ReadonlySet<number>; changed: ReadonlySet<number> }): boolean {
  if (earlier.changed.size > 0) for (const person of later.all) if (earlier.changed.has(person)) return true;
  for (const person of later.changed) if (earlier.all.has(person)) return true;
  return false;
}
