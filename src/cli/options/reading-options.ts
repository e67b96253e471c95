/**
 * The flags that say how source files are read, shared by export-source, identify-users and
 * identify-groups: --encoding, --delimiter, --trim/--no-trim and --column. Each becomes a reader
 * option; the use case records them with every read. Those not given are told to it too: a file
 * read before keeps its earlier read's value for them (see stage-sources/content-options.ts).
 */
import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { encodingName } from '../../sources/text-decoder.js';
import { collect } from './common-options.js';

export interface ReadingFlags {
  encoding?: string;
  delimiter?: string;
  /** Undefined when neither --trim nor --no-trim is given (then trimmed, or as the file's earlier read). */
  trim?: boolean;
  column: string[];
}

/** Adds the flags; `columnHelp` says what --column names for this command. */
export function readingOptions(command: Command, columnHelp: string): Command {
  return command
    .option('--encoding <label>', "the files' encoding when they have no byte-order mark: utf-8 (default), latin1, windows-1252, utf-16le, shift_jis... (any WHATWG label)")
    .option('--delimiter <char>', "CSV: the field delimiter: ',', ';', tab (or '\\t'), '|' or another character (default: the one that splits the header best)")
    .option('--trim', 'CSV: drop spaces around unquoted values, " u1" read as "u1" (the default, but for a file staged earlier untrimmed)')
    .option('--no-trim', 'CSV: keep spaces around unquoted values (default: " u1" is read as "u1")')
    .option('--column <role=name>', columnHelp, collect, [] as string[]);
}

/** The encoding's WHATWG name, or a UsageError for a label TextDecoder does not know. */
export function parseEncoding(label: string | undefined): string | undefined {
  if (label === undefined) return undefined;
  const name = encodingName(label);
  if (name === undefined) throw new UsageError(`--encoding ${label}: not an encoding label this tool knows (e.g. utf-8, latin1, windows-1252, utf-16le, shift_jis)`);
  return name;
}

const NAMED_DELIMITERS: Readonly<Record<string, string>> = { tab: '\t', '\\t': '\t', comma: ',', semicolon: ';', pipe: '|' };

/** The delimiter character: `tab` and `\t` are a tab; anything else must be one character, not a quote or a line end. */
export function parseDelimiter(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const char = Object.hasOwn(NAMED_DELIMITERS, value.toLowerCase()) ? NAMED_DELIMITERS[value.toLowerCase()]! : value;
  if ([...char].length !== 1 || char.length !== 1 || char === '"' || char === '\n' || char === '\r') {
    throw new UsageError(`--delimiter ${JSON.stringify(value)}: expected one character such as ',', ';', '|' or tab`);
  }
  return char;
}

/** --column role=name, for the roles a command reads. */
export function parseColumns(values: readonly string[], roles: readonly string[], what = 'header'): Record<string, string> {
  const columns: Record<string, string> = {};
  for (const value of values) {
    const at = value.indexOf('=');
    const role = at === -1 ? value : value.slice(0, at);
    const name = at === -1 ? '' : value.slice(at + 1).trim();
    if (!roles.includes(role) || name === '') {
      throw new UsageError(`--column ${value}: expected <role>=<${what}> with role one of ${roles.join(', ')}`);
    }
    columns[role] = name;
  }
  return columns;
}

/** The reader options these flags give; CSV-only ones are refused for other formats. */
export function readingInput(flags: ReadingFlags, csv: boolean): { encoding?: string; delimiter?: string; trim?: boolean } {
  if (!csv && flags.delimiter !== undefined) throw new UsageError('--delimiter applies to CSV files only');
  if (!csv && flags.trim === false) throw new UsageError('--no-trim applies to CSV files only');
  if (!csv && flags.trim === true) throw new UsageError('--trim applies to CSV files only');
  const out: { encoding?: string; delimiter?: string; trim?: boolean } = {};
  const encoding = parseEncoding(flags.encoding);
  if (encoding !== undefined) out.encoding = encoding;
  const delimiter = parseDelimiter(flags.delimiter);
  if (delimiter !== undefined) out.delimiter = delimiter;
  if (csv) out.trim = flags.trim ?? true;
  return out;
}

/** The reading options left at their defaults, by their recorded keys. */
export function defaultedReading(flags: ReadingFlags): string[] {
  return [...(flags.encoding === undefined ? ['encoding'] : []), ...(flags.delimiter === undefined ? ['delimiter'] : []), ...(flags.trim === undefined ? ['trim'] : [])];
}
