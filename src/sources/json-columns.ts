/**
 * `--column role=path` for JSON sources: read an event's event name, distinct_id, timestamp or
 * uuid from another field, named by a dotted path (`properties.user.id`, `ts`). The field stays
 * where it is; only where the role is read from changes.
 */
import type { CandidateEvent } from '../events/build-event.js';
import type { RowProblem } from '../events/reject-reasons.js';
import type { CsvRole } from './source-item.js';

/** The value at a dotted path: each segment an own key of an object (or an index of a list); undefined when absent. */
export function valueAtPath(record: unknown, path: string): unknown {
  if (record !== null && typeof record === 'object' && Object.hasOwn(record, path)) return (record as Record<string, unknown>)[path];
  let value = record;
  for (const segment of path.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, segment)) return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}

const CANDIDATE_FIELDS = { event: 'event', distinct_id: 'distinctId', timestamp: 'timestamp', uuid: 'uuid' } as const;

type ColumnRole = keyof typeof CANDIDATE_FIELDS;

/** The roles `--column` may name for a JSON format (`properties` only for plain JSON lines). */
export const JSON_COLUMN_ROLES: readonly CsvRole[] = ['event', 'distinct_id', 'timestamp', 'uuid'];

/**
 * The candidate with each role given by `--column` read from its path instead. A uuid path
 * that holds nothing leaves the format's own uuid (or the derived one), as an empty uuid cell does.
 */
export function applyJsonColumns(result: CandidateEvent | RowProblem, record: Record<string, unknown>, columns: Partial<Record<CsvRole, string>> | undefined): CandidateEvent | RowProblem {
  if (columns === undefined || 'reason' in result) return result;
  let out = result;
  for (const role of Object.keys(CANDIDATE_FIELDS) as ColumnRole[]) {
    const path = columns[role];
    if (path === undefined) continue;
    const value = valueAtPath(record, path);
    if (role === 'uuid' && (value === undefined || value === null || value === '')) continue;
    const field = CANDIDATE_FIELDS[role];
    out = { ...out, [field]: value, fieldNames: { ...out.fieldNames, [field]: path } };
  }
  return out;
}
