/** Types for bench-report.mjs, so tests written in TypeScript can call it. */
export const TARGETS: {
  exportRowsPerSec: number;
  exportVsFloor: number;
  nestedCsvVsFloor: number;
  parquetVsFloor: number;
  importEventsPerSec: number;
  importVsPeer: number;
  peakRssBytes: number;
  stagingVsCsv: number;
  stagingVsJson: number;
  statusMs: number;
  straightLine: number;
  atEvents: number;
};
export const FLOORS: Record<string, { floor: string; min: number }>;
export const FILE_HEADER: string;
export function count(n: number): string;
export function seconds(ms: number): string;
export function megabytes(bytes: number): string;
export function times(x: number): string;
export function perSecond(n: number, ms: number): number;

export interface Measured {
  wallMs: number;
  peakRssBytes: number | null;
}
export interface Counts {
  staged: number;
  rejected: number;
  skipped: number;
  duplicates: number;
}
export interface FormatResults {
  format: string;
  floor?: Measured & { rows: number };
  export?: Measured & { rows: number; cpuMs?: number | null; stagingBytes: number; sourceBytes: number; sourceTextBytes?: number; expected: Counts; got: Counts };
  baseline?: Measured & { rows: number; cpuMs?: number | null; stagingBytes: number; sourceBytes: number; sourceTextBytes?: number; expected: Counts; got: Counts };
}
export interface ImportResults {
  kind: 'flat' | 'nested';
  /** events: what the import delivered; staged: what export-source staged. */
  import?: Measured & { events: number; staged: number; counted: number; wireBytes: number; requests: number };
  peer?: Measured & { events: number; counted: number; bytesSent: number; requests: number };
}
export interface StepResults {
  formats: FormatResults[];
  imports: ImportResults[];
  status?: Measured & { stagedEvents: number; afterImport: boolean };
}
export interface Row {
  step: string;
  what: string;
  figure: string;
  ratio: string;
  target: string;
  met: string;
}
export interface ExportRatio {
  format: string;
  ratio: number;
  min: number;
}
export interface Headlines {
  exports: ExportRatio[];
  worstExport: ExportRatio | null;
  imports: Array<{ kind: string; ratio: number }>;
  /** rows/s of the large run against the baseline's, per format, when a baseline ran. */
  lines?: Array<{ format: string; ratio: number }>;
}
export interface RunInfo {
  date: string;
  events: number;
  command: string;
  machine: string;
  commit: string;
  rows: readonly Row[];
  headlines: Headlines;
  notes: readonly string[];
}
export function headlines(r: StepResults): Headlines;
export function evaluate(r: StepResults, events: number): Row[];
export function formatTable(rows: readonly Row[]): string;
export function markdownTable(rows: readonly Row[]): string;
export function headlineText(h: Headlines): string;
export function footnotes(rows: readonly Row[]): string[];
export function runSection(run: RunInfo): string;
export function insertSection(existing: string | null, section: string): string;
export function shellQuote(words: readonly string[]): string;
