/** One decoded row group of a columnar file (a Parquet row group, an Avro block). */
export interface RowGroup {
  rows: number;
  /**
   * Pushes row `row`'s JSON object line (0-based within the group, without its line end) onto
   * `parts`, as flat pieces joined once with the lines around it (columnar-values.ts pushValue).
   * Each row is asked for once: what it held may be released when it is written.
   */
  pushLine(row: number, parts: string[]): void;
}
