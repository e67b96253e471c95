/**
 * What a Parquet file's schema (its footer's list of elements, each followed by its children)
 * says about the columns parquet-file.ts reads: their top-level names, which are DECIMAL, names hyparquet could not hold as object keys, and names given twice.
 */
import { InputError } from '../../errors.js';
import { escapeKey, unescapeKey } from './columnar-values.js';

/** The parts of hyparquet's metadata read here (hyparquet is imported only by the files that read pages: parquet-file.ts, parquet-pages.ts, parquet-slices.ts). */
export interface SchemaElement {
  name: string;
  num_children?: number;
  type?: string;
  converted_type?: string;
  logical_type?: { type: string };
  scale?: number;
  repetition_type?: string;
}
interface FileMetaData {
  schema: SchemaElement[];
  row_groups: Array<{ columns: Array<{ meta_data?: { path_in_schema: string[] } }> }>;
}

/**
 * Top-level DECIMAL columns are read as their unscaled integers (their annotation removed) and
 * written as exact numerals here; returns each one's scale by name.
 */
export function takeDecimals(metadata: FileMetaData): Map<string, number> {
  const scales = new Map<string, number>();
  const schema = metadata.schema;
  let index = 1;
  const top = schema[0]?.num_children ?? 0;
  for (let child = 0; child < top && index < schema.length; child++) {
    const element = schema[index]!;
    const isDecimal = element.converted_type === 'DECIMAL' || element.logical_type?.type === 'DECIMAL';
    if (isDecimal && element.num_children === undefined) {
      scales.set(element.name, element.scale ?? 0);
      element.converted_type = undefined;
      element.logical_type = undefined;
    }
    index = skipSubtree(schema, index);
  }
  return scales;
}

/**
 * Field and column names as hyparquet's objects can hold them (escapeKey): hyparquet builds a
 * struct as a plain object keyed by its fields' names, where `__proto__` would be lost. The
 * column chunks' paths name the same fields, so they are escaped alike.
 */
export function escapeNames(metadata: FileMetaData): void {
  for (const element of metadata.schema) element.name = escapeKey(element.name);
  for (const group of metadata.row_groups) {
    for (const chunk of group.columns) {
      const path = chunk.meta_data?.path_in_schema;
      if (path !== undefined) for (let i = 0; i < path.length; i++) path[i] = escapeKey(path[i]!);
    }
  }
}

/** Two top-level columns of one name: only the first could be read, so the file is refused (as a CSV header naming a column twice is). */
export function refuseDuplicates(columns: readonly string[], displayName: string): void {
  const seen = new Set<string>();
  for (const name of columns) {
    if (seen.has(name)) throw new InputError(`${displayName}: two columns are named "${unescapeKey(name)}"; a table's column names must differ (rewrite the file with one of them renamed)`);
    seen.add(name);
  }
}

/** The index after the element at `index` and all its descendants. */
function skipSubtree(schema: FileMetaData['schema'], index: number): number {
  let pending = 1;
  while (pending > 0 && index < schema.length) {
    pending += (schema[index]!.num_children ?? 0) - 1;
    index++;
  }
  return index;
}

/** The top-level columns' names, in the schema's order. */
export function topLevelNames(schema: FileMetaData['schema']): string[] {
  const names: string[] = [];
  const top = schema[0]?.num_children ?? 0;
  let index = 1;
  for (let child = 0; child < top && index < schema.length; child++) {
    names.push(schema[index]!.name);
    index = skipSubtree(schema, index);
  }
  return names;
}
