/**
 * Times that columnar files write without a zone: Parquet's TIMESTAMP with isAdjustedToUTC
 * false (what pandas writes for a datetime without a zone, Spark's TIMESTAMP_NTZ) and Avro's
 * local-timestamp-* types hold a wall-clock reading, not an instant. They are written as ISO
 * text without a `Z`, so the timestamp rules read them as any time without a zone: in
 * --timezone, and without one rejected as timestamp_without_zone, never taken as UTC. Pure.
 */

/** An ISO time in UTC (see isoTime) as the same wall-clock reading without its zone. */
export function withoutZone(iso: string): string {
  return iso.endsWith('Z') ? iso.slice(0, -1) : iso;
}

/** The parts of a Parquet schema element (as hyparquet reads the footer) looked at here. */
interface Element {
  name: string;
  num_children?: number;
  logical_type?: { type: string; isAdjustedToUTC?: boolean };
}

/** The top-level columns of a Parquet schema whose TIMESTAMP is not adjusted to UTC, by name. */
export function localTimeColumns(schema: readonly Element[]): Set<string> {
  const names = new Set<string>();
  const top = schema[0]?.num_children ?? 0;
  for (let index = 1, child = 0; child < top && index < schema.length; child++) {
    const element = schema[index]!;
    if (element.num_children === undefined && element.logical_type?.type === 'TIMESTAMP' && element.logical_type.isAdjustedToUTC === false) names.add(element.name);
    index = afterSubtree(schema, index);
  }
  return names;
}

function afterSubtree(schema: readonly Element[], index: number): number {
  let pending = 1;
  while (pending > 0 && index < schema.length) {
    pending += (schema[index]!.num_children ?? 0) - 1;
    index++;
  }
  return index;
}

/** A cell of a local-time column without its zone (null and other values as they are). */
export function localCell(value: unknown): unknown {
  return typeof value === 'string' ? withoutZone(value) : value;
}
