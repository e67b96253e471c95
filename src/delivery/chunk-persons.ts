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
 * event, on the reading thread. A search may find a key nested deeper than the top level, or a
 * string that spells one: the chunk then waits when it need not, which costs time, never order.
 * Pure.
 */

export interface ChunkPersons {
  /** Every person of the chunk's events (by distinct_id, linked ids as one). */
  all: string[];
  /** The persons some event of the chunk changes. */
  changed: string[];
}

/** The person a distinct_id belongs to, as far as the staged links tell; the id itself when unlinked. */
export type PersonOf = (distinctId: string) => string;

const DISTINCT_ID_KEY = Buffer.from(',"distinct_id":"', 'latin1');
const ANON_ID_KEY = Buffer.from('"$anon_distinct_id":"', 'latin1');
const EVENT_KEY = Buffer.from('","event":"', 'latin1');
/** Keys of person properties an event carries for its person. */
const CHANGE_KEYS = ['"$set"', '"$set_once"', '"$unset"'].map((key) => Buffer.from(key, 'latin1'));
/** Events that change who a person is (merges): ordered like changes. */
const MERGE_EVENTS = ['$identify', '$create_alias', '$merge_dangerously'].map((name) => Buffer.from(`${name}"`, 'latin1'));
/** What the staging rules put on every row PostHog must not locate (see events/ingestion-rules.ts). */
const NOT_LOCATED = Buffer.from('"$geoip_disable":true', 'latin1');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The JSON string whose text starts at `from` (after its opening quote) in `json`, and where it ends. */
function stringAt(json: Buffer, from: number, end: number): string | undefined {
  let escaped = false;
  for (let i = from; i < end; i++) {
    const c = json[i]!;
    if (c === BACKSLASH) {
      escaped = true;
      i++;
    } else if (c === QUOTE) {
      const text = json.toString('utf8', from, i);
      return escaped ? (JSON.parse(`"${text}"`) as string) : text;
    }
  }
  return undefined;
}

function hasAt(json: Buffer, at: number, bytes: Buffer): boolean {
  return json.compare(bytes, 0, bytes.length, at, at + bytes.length) === 0;
}

/** Whether the event's JSON `json[start, end)` changes its person. */
function changesPerson(json: Buffer, start: number, end: number): boolean {
  const event = json.indexOf(EVENT_KEY, start);
  if (event !== -1 && event < end && MERGE_EVENTS.some((name) => hasAt(json, event + EVENT_KEY.length, name))) return true;
  const within = (bytes: Buffer): boolean => {
    const at = json.indexOf(bytes, start);
    return at !== -1 && at < end;
  };
  return !within(NOT_LOCATED) || CHANGE_KEYS.some(within);
}

/** The persons of a chunk whose events' JSON is `json`, each ending (exclusive) at `ends[i]`, joined by commas. */
export function chunkPersons(json: Buffer, ends: readonly number[], personOf: PersonOf): ChunkPersons {
  const all = new Set<string>();
  const changed = new Set<string>();
  for (let i = 0, start = 0; i < ends.length; start = ends[i]! + 1, i++) {
    const end = ends[i]!;
    const at = json.indexOf(DISTINCT_ID_KEY, start);
    if (at === -1 || at >= end) continue;
    const distinctId = stringAt(json, at + DISTINCT_ID_KEY.length, end);
    if (distinctId === undefined) continue;
    const person = personOf(distinctId);
    all.add(person);
    if (!changesPerson(json, start, end)) continue;
    changed.add(person);
    // A merge changes the anonymous id's person too.
    const anon = json.indexOf(ANON_ID_KEY, start);
    const anonId = anon !== -1 && anon < end ? stringAt(json, anon + ANON_ID_KEY.length, end) : undefined;
    if (anonId !== undefined) {
      all.add(personOf(anonId));
      changed.add(personOf(anonId));
    }
  }
  return { all: [...all], changed: [...changed] };
}

/** Whether a chunk touching `later` must wait for one touching `earlier` (see the file's comment). */
export function mustFollow(later: ChunkPersons, earlier: { all: ReadonlySet<string>; changed: ReadonlySet<string> }): boolean {
  for (const person of later.changed) if (earlier.all.has(person)) return true;
  for (const person of later.all) if (earlier.changed.has(person)) return true;
  return false;
}
