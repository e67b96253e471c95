/**
 * The persons staged person updates link distinct_ids into (`$anon_distinct_id`): each id's
 * person named by one of its ids, for the ids some update links (see delivery/chunk-persons.ts).
 * Person updates are sent before the events by default, so the events of both ids belong to one
 * person by then. Reads the person updates only, once per run.
 */
import { EventKind } from '../events/staged-event.js';
import { personHash, type PersonOf } from '../delivery/chunk-persons.js';
import { propertiesSql } from './property-blocks.js';
import type { StagingStore } from './staging-store.js';

export function stagedPersonLinks(store: StagingStore): PersonOf {
  const P = propertiesSql('properties');
  const pairs = store.db
    .prepare(
      `SELECT distinct_id, CAST(json_extract(${P}, '$."$anon_distinct_id"') AS TEXT) FROM events
       WHERE kind = ${EventKind.person} AND json_extract(${P}, '$."$anon_distinct_id"') IS NOT NULL`,
    )
    .raw(true)
    .iterate() as IterableIterator<[string, string]>;
  // Row by row: a migration may link millions of ids, and their text all at once would be
  // hundreds of MB on the reading thread; the map keeps two numbers per linked id (about 44 MB
  // per million, measured with V8's heap statistics).
  const parent = new Map<number, number>();
  const root = (id: number): number => {
    let at = id;
    for (let next = parent.get(at); next !== undefined && next !== at; next = parent.get(at)) at = next;
    if (at !== id) parent.set(id, at);
    return at;
  };
  for (const [a, b] of pairs) {
    const ra = root(personHash(a));
    const rb = root(personHash(b));
    if (ra !== rb) parent.set(rb, ra);
  }
  return (idHash) => (parent.size === 0 ? idHash : root(idHash));
}
