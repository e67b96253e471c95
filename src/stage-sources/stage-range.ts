/**
 * Stages one downloaded range exactly as the file readers stage a file: the spool file is
 * opened as export-source opens files (gzip recognised by content; a zip archive file by
 * file), each file becomes one read named after the range, and stageFile does the rest (same
 * mapping, uuids, rejects). The caller undoes the range's reads if any of them fails.
 */
import { basename } from 'node:path';
import { withFormat } from './recorded-options.js';
import { checkStagingRoom } from './staging-room.js';
import type { Reporter } from '../reporter.js';
import type { SourceInput } from '../sources/open-input.js';
import type { SourceFormat } from '../sources/source-item.js';
import { openInputs, openZipInputs } from '../sources/zip-input.js';
import type { EventWriter } from '../staging/event-writer.js';
import type { ReadCounts } from '../staging/source-reads.js';
import type { StagingStore } from '../staging/staging-store.js';
import { planFiles } from './file-plan.js';
import { fileSettings, type FileSettings } from './file-settings.js';
import { stageFile } from './stage-file.js';
import type { FileSummary, StageFileOptions } from './stage-file-options.js';

export interface RangeStaging {
  store: StagingStore;
  writer: EventWriter;
  /** The registered file format the answers are in (`mixpanel`, `amplitude`). */
  format: string;
  source: SourceFormat;
  /** Whether an answer is a zip archive of files (Amplitude) rather than one file. */
  archive: boolean;
  readerOptions: StageFileOptions['readerOptions'];
  rules: StageFileOptions['rules'];
  recordedOptions: Record<string, unknown>;
  workers?: number;
  /** Timestamp for rows without one (person updates without a time), as file staging takes it. */
  defaultTimestampMs?: number;
  /** Rows of earlier reads under the same name that are gone are withdrawn, delivered or not (a read that stands for a state, not for a download). */
  replaceChanged?: boolean;
  signal: AbortSignal;
  reporter: Reporter;
}

export interface RangeStaged {
  files: FileSummary[];
}

/** The spool file's inputs, named after the range (and, in an archive, each file's name). */
async function rangeInputs(staging: RangeStaging, spoolPath: string, name: string): Promise<SourceInput[]> {
  if (!staging.archive) return (await openInputs(spoolPath, staging.source.extensions)).map((input) => ({ ...input, path: name, displayName: name }));
  const inputs = await openZipInputs(spoolPath, staging.source.extensions);
  return inputs.map((input) => {
    const entry = `${name}!${basename(input.path.slice(input.path.lastIndexOf('!') + 1))}`;
    return { ...input, path: entry, displayName: entry };
  });
}

export async function stageRange(staging: RangeStaging, spoolPath: string, name: string, onProgress: (counts: ReadCounts) => void): Promise<RangeStaged> {
  const inputs = await rangeInputs(staging, spoolPath, name);
  const files: FileSummary[] = [];
  try {
    // A range's reads are new each time (nothing inherited from an earlier read), read as a file of its format is.
    const run = { readerOptions: staging.readerOptions, rules: staging.rules, recordedOptions: withFormat(staging.recordedOptions, staging.format), defaulted: [] };
    const settled: FileSettings[] = [];
    for (const input of inputs) settled.push(await fileSettings(input, staging.source, run, undefined));
    // A range is never resumed part-way (a download is not byte-stable).
    const plans = planFiles(
      staging.store,
      settled.map(({ input, recorded }) => ({
        path: input.path,
        displayName: input.displayName,
        recordedOptions: recorded,
        replaceChanged: staging.replaceChanged === true,
        resumable: false,
        stream: false,
      })),
    );
    await checkStagingRoom(staging.store, inputs, staging.reporter);
    for (const [i, { input, reading, rules, recorded }] of settled.entries()) {
      files.push(
        await stageFile(
          {
            store: staging.store,
            writer: staging.writer,
            input,
            format: staging.format,
            source: reading.source,
            readerOptions: reading.readerOptions,
            command: 'export-source',
            rules,
            recordedOptions: recorded,
            workers: staging.workers,
            replaceChanged: staging.replaceChanged,
            defaultTimestampMs: staging.defaultTimestampMs,
            signal: staging.signal,
            onProgress,
          },
          plans[i]!,
        ),
      );
    }
    return { files };
  } finally {
    await Promise.all(inputs.map((input) => input.close?.()));
  }
}
