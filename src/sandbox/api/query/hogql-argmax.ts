/**
 * ClickHouse's argMax(value, by) as an SQLite aggregate, for the sandbox's HogQL: the value on
 * the row whose `by` is largest (the first such row on a tie, where ClickHouse takes any).
 */
import type { Database } from '../../../sqlite/database.js';

/** The SQL name the compiler writes for argMax. */
export const ARGMAX_SQL = 'hogql_argmax';

interface Best {
  value: unknown;
  by: number | string | bigint | null;
}

export function registerArgMax(db: Database): void {
  db.aggregate(ARGMAX_SQL, {
    start: (): Best => ({ value: null, by: null }),
    // Two named parameters: better-sqlite3 takes the function's arity from them.
    step: ((best: Best, value: unknown, by: Best['by']): Best => (by !== null && (best.by === null || by > best.by) ? { value, by } : best)) as unknown as (best: Best, next: Best) => Best,
    result: (best: Best) => best.value as never,
  });
}
