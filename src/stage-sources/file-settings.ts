/**
 * What each file is read with in this run: how its text is read (file-reading.ts) and the
 * options recorded with its read. An option left at its default that its earlier read had
 * another value for is taken from that read (see content-options.ts), and said so: a file
 * staged by an older migrate is read again as it was read then, and stages nothing new.
 */
import type { RulesSpec } from '../events/rules-spec.js';
import type { SourceInput } from '../sources/open-input.js';
import type { ReaderOptions, SourceFormat } from '../sources/source-item.js';
import type { ReadRecord } from '../staging/source-reads.js';
import { describeKept, keptOptions, type RunSettings } from './content-options.js';
import { fileReading, type FileReading } from './file-reading.js';

/** What a run asks for, before any file's earlier read is looked at. */
export interface RunRequest {
  readerOptions: Omit<ReaderOptions, 'displayName'>;
  rules: RulesSpec;
  recordedOptions: Record<string, unknown>;
  /** Keys of the content options left at their defaults (see content-options.ts). */
  defaulted: readonly string[];
}

export interface FileSettings {
  /** The file; opened again when it is read with its earlier read's encoding. */
  input: SourceInput;
  reading: FileReading;
  rules: RulesSpec;
  /** Recorded with the read, and compared with the earlier read's. */
  recorded: Record<string, unknown>;
}

/** How `file` is read, given its latest earlier read (if any). */
export async function fileSettings(file: SourceInput, source: SourceFormat, run: RunRequest, previous: ReadRecord | undefined): Promise<FileSettings> {
  const reading = fileReading(file, source, run.readerOptions);
  const recorded = { ...run.recordedOptions, ...reading.recorded };
  // A stream, opened once, is read in the encoding it was opened with.
  const defaulted = file.reopen === undefined ? run.defaulted.filter((key) => key !== 'encoding') : run.defaulted;
  const kept = previous === undefined ? [] : keptOptions(previous.options, recorded, defaulted);
  if (kept.length === 0) return { input: file, reading, rules: run.rules, recorded };
  const settings: RunSettings = { readerOptions: { ...run.readerOptions }, rules: { ...run.rules }, recorded: { ...run.recordedOptions } };
  for (const k of kept) k.option.inherits!.apply(k.value, settings);
  const encoding = kept.find((k) => k.option.key === 'encoding')?.value as string | undefined;
  // Opened again in the earlier read's encoding. A byte-order mark still wins: then the recorded encodings differ, and the change is refused.
  const input = encoding !== undefined && file.reopen !== undefined ? await file.reopen({ encoding }) : file;
  const again = fileReading(input, source, settings.readerOptions as RunRequest['readerOptions']);
  again.notices.unshift(...kept.map(describeKept));
  return { input, reading: again, rules: settings.rules as RulesSpec, recorded: { ...settings.recorded, ...again.recorded } };
}
