/**
 * Prepared statements kept per store, for writes made once per piece (thousands of times a
 * file): preparing them again each time showed in profiles.
 */
import type { Statement } from '../sqlite/database.js';
import type { StagingStore } from './staging-store.js';

const byStore = new WeakMap<StagingStore, Map<string, Statement>>();

/** The statement for `sql` on `store`, prepared the first time it is asked for. */
export function statement(store: StagingStore, sql: string): Statement {
  let cache = byStore.get(store);
  if (cache === undefined) byStore.set(store, (cache = new Map()));
  let prepared = cache.get(sql);
  if (prepared === undefined) cache.set(sql, (prepared = store.db.prepare<unknown[]>(sql)));
  return prepared;
}
