/**
 * A Parquet row group decoded a slice of rows at a time, across all its columns: what is held
 * between slices is the row group's compressed bytes, each column's current page (decompressed,
 * or for a large zstd page its window and the slice's bytes, parquet-page-stream.ts) and its
 * levels, and one slice of JavaScript values. A top-level group (a struct, list or map) is
 * assembled from its leaf columns' slices as hyparquet assembles a whole row group.
 */
import { parquetSchema, type FileMetaData, type ParquetParsers } from 'hyparquet';
import { assembleNested } from 'hyparquet/src/assemble.js';
import { DEFAULT_PARSERS } from 'hyparquet/src/convert.js';
import { getTreePath } from 'hyparquet/src/schema.js';
import { compressors } from 'hyparquet-compressors';
import { freeBuffer } from '../../util/free-buffer.js';
import { ColumnPages, type ColumnDecoder } from './parquet-pages.js';

/** Where one leaf column chunk's bytes are in the file, its pages from the first (a dictionary page, when it has one). */
export interface ChunkRange {
  /** The top-level column it belongs to. */
  column: string;
  start: number;
  end: number;
}

/** The byte range of each leaf column chunk of row group `group`, in the footer's order. */
export function chunkRanges(metadata: FileMetaData, group: number): ChunkRange[] {
  return metadata.row_groups[group]!.columns.map((chunk) => {
    const meta = chunk.meta_data;
    if (chunk.file_path) throw new Error('parquet file_path not supported');
    if (meta === undefined) throw new Error('parquet column metadata is undefined');
    // A dictionary page offset of 0 is a writer's "none", as hyparquet reads it.
    const start = Number(meta.dictionary_page_offset || meta.data_page_offset);
    return { column: meta.path_in_schema[0]!, start, end: start + Number(meta.total_compressed_size) };
  });
}

/** Slices of a row group's rows: each top-level column's values for the next rows. */
export interface RowGroupSlices {
  /** The next `rows` rows of each top-level column (in `columns` order; a column may end short where the file's chunk does). */
  next(rows: number): unknown[][];
  /**
   * Frees the pages the slices so far have read to their end; with `all`, every page and the
   * row group's bytes too. Only once the values taken have been written: a value may be a view
   * of its page.
   */
  release(all?: boolean): void;
}

type Schema = ReturnType<typeof parquetSchema>;

interface TopColumn {
  schema: Schema;
  /** Its leaf columns' pages, keyed by their dotted path. */
  leaves: Array<{ path: string; pages: ColumnPages }>;
}

/**
 * Slices of row group `group`, whose chunks' bytes are `chunks` (as chunkRanges gives them, in
 * the same order). `parsers` are hyparquet's, as given to its own reader.
 */
export function rowGroupSlices(metadata: FileMetaData, group: number, chunks: readonly Uint8Array[], columns: readonly string[], parsers: Partial<ParquetParsers>): RowGroupSlices {
  const tree = parquetSchema(metadata);
  const allParsers: ParquetParsers = { ...DEFAULT_PARSERS, ...parsers };
  const tops = new Map<string, TopColumn>();
  for (const child of tree.children) tops.set(child.element.name, { schema: child, leaves: [] });
  metadata.row_groups[group]!.columns.forEach((chunk, i) => {
    const meta = chunk.meta_data!;
    const schemaPath = getTreePath(tree, meta.path_in_schema);
    const decoder: ColumnDecoder = {
      pathInSchema: meta.path_in_schema,
      element: schemaPath[schemaPath.length - 1]!.element,
      schemaPath,
      type: meta.type,
      codec: meta.codec,
      compressors,
      utf8: false,
      parsers: allParsers,
    };
    tops.get(meta.path_in_schema[0]!)?.leaves.push({ path: meta.path_in_schema.join('.'), pages: new ColumnPages(chunks[i]!, decoder) });
  });
  const ordered = columns.map((name) => tops.get(name));
  return {
    next: (rows) => ordered.map((top) => (top === undefined ? [] : topValues(top, rows, allParsers))),
    release(all = false) {
      for (const top of tops.values()) for (const leaf of top.leaves) leaf.pages.release(all);
      if (all && chunks.length > 0) freeBuffer(new Uint8Array(chunks[0]!.buffer));
    },
  };
}

/** The next `rows` values of a top-level column: its one leaf's, or its leaves' assembled into its lists, maps and records. */
function topValues(top: TopColumn, rows: number, parsers: ParquetParsers): unknown[] {
  if (top.leaves.length === 0) return [];
  if (top.schema.children.length === 0) return top.leaves[0]!.pages.take(rows);
  const leaves = new Map<string, ReturnType<ColumnPages['take']>>();
  for (const leaf of top.leaves) leaves.set(leaf.path, leaf.pages.take(rows));
  // hyparquet's types ask for its decoded arrays; plain arrays are what it assembles itself.
  const subcolumns = leaves as unknown as Parameters<typeof assembleNested>[0];
  assembleNested(subcolumns, top.schema, parsers);
  const assembled = subcolumns.get(top.schema.element.name);
  if (!assembled) throw new Error('parquet column data not assembled');
  return assembled as unknown[];
}
