/**
 * Stages one source file: reads it, applies the event rules to every row, writes batches to
 * the staging file. The read is undone as a whole if the file fails or the user interrupts,
 * so a file is either staged completely or not at all. Shared by every staging command.
 */
import { InterruptedError, RefusedError } from '../errors.js';
import { buildEvent, type EventRules } from '../events/build-event.js';
import type { RowProblem } from '../events/reject-reasons.js';
import type { SourceInput } from '../sources/open-input.js';
import type { ReaderOptions, SourceReader } from '../sources/source-item.js';
import type { EventWriter, StageEntry } from '../staging/event-writer.js';
import { abandonRead, beginRead, finishRead, previousReadOptions, type ReadCounts } from '../staging/source-reads.js';
import type { StagingStore } from '../staging/staging-store.js';

export interface StageFileOptions {
  store: StagingStore;
  writer: EventWriter;
  input: SourceInput;
  reader: SourceReader;
  readerOptions: Omit<ReaderOptions, 'displayName'>;
  format: string;
  command: string;
  rules: EventRules;
  /** Recorded with the read: the options that shape staged content. */
  recordedOptions: Record<string, unknown>;
  signal?: AbortSignal;
  /** Called after each batch with the counts so far. */
  onBatch?: (counts: ReadCounts) => void;
  /** Rows per transaction. Default 20000: fewer, larger commits rewrite fewer index pages. */
  batchSize?: number;
}

export interface FileSummary extends ReadCounts {
  path: string;
  displayName: string;
  fingerprint: string | undefined;
  rejectedByReason: Record<string, number>;
  /** The first few rejects, to show at once without `migrate rejects`. */
  firstRejects: Array<{ line: number } & RowProblem>;
}

const SHOWN_REJECTS = 5;

function emptyCounts(): ReadCounts {
  return { rowsRead: 0, staged: 0, alreadyStaged: 0, duplicates: 0, skipped: 0, rejected: 0, recent: 0 };
}

/**
 * Options that decide an event's timestamp also decide its derived uuid. Re-reading a file
 * with another time zone or other columns would stage rows a second time at another time, so
 * it is refused. Adding --timezone where there was none is allowed: rows with a zone keep their
 * times and uuids, and only the rows rejected for having no zone are new.
 */
function refuseChangedTimeOptions(store: StagingStore, input: SourceInput, recorded: Record<string, unknown>): void {
  const previous = previousReadOptions(store, input.path);
  if (previous === undefined) return;
  const changed = (name: string): boolean => JSON.stringify(previous[name] ?? null) !== JSON.stringify(recorded[name] ?? null);
  const zoneChanged = previous.timezone != null && recorded.timezone != null && changed('timezone');
  const name = zoneChanged ? 'timezone' : changed('columns') ? 'columns' : undefined;
  if (name === undefined) return;
  throw new RefusedError(
    `${input.displayName} was staged earlier with ${name} ${JSON.stringify(previous[name])}; now ${JSON.stringify(recorded[name])}`,
    ['Its events would be staged again at other times. Pass the same option, or use a new staging file (--staging) to start over.'],
  );
}

export async function stageFile(options: StageFileOptions): Promise<FileSummary> {
  const { store, writer, input } = options;
  refuseChangedTimeOptions(store, input, options.recordedOptions);
  const readId = beginRead(store, {
    path: input.path,
    format: options.format,
    command: options.command,
    sizeBytes: input.sizeBytes,
    options: options.recordedOptions,
  });
  const summary: FileSummary = { ...emptyCounts(), path: input.path, displayName: input.displayName, fingerprint: undefined, rejectedByReason: {}, firstRejects: [] };
  const noteReject = (line: number, p: RowProblem): void => {
    summary.rejectedByReason[p.reason] = (summary.rejectedByReason[p.reason] ?? 0) + 1;
    if (summary.firstRejects.length < SHOWN_REJECTS) summary.firstRejects.push({ line, ...p });
  };
  let batch: StageEntry[] = [];
  const flush = (): void => {
    const counts = writer.write(readId, batch);
    summary.staged += counts.staged;
    summary.alreadyStaged += counts.alreadyStaged;
    summary.duplicates += counts.duplicates;
    summary.rejected += counts.rejected;
    for (const conflict of counts.conflicts) noteReject(conflict.line, conflict.problem);
    batch = [];
    options.onBatch?.(summary);
  };
  try {
    for await (const items of options.reader(input.text, { ...options.readerOptions, displayName: input.displayName })) {
      for (const item of items) {
        summary.rowsRead++;
        if ('problem' in item) {
          noteReject(item.line, item.problem);
          batch.push(item);
          continue;
        }
        const outcome = buildEvent(item.candidate, options.rules);
        if (outcome.type === 'skipped') summary.skipped++;
        else if (outcome.type === 'rejected') {
          noteReject(item.line, outcome.problem);
          batch.push({ line: item.line, raw: item.raw, problem: outcome.problem });
        } else {
          if (outcome.recent) summary.recent++;
          batch.push({ line: item.line, raw: item.raw, event: outcome.event });
        }
      }
      if (batch.length >= (options.batchSize ?? 20_000)) flush();
      if (options.signal?.aborted) throw new InterruptedError(`interrupted while staging ${input.displayName}; nothing from it was staged`, ['Run the same command again: files already staged are recognised.']);
    }
    flush();
  } catch (error) {
    abandonRead(store, readId, (error as Error).message);
    throw error;
  }
  summary.fingerprint = input.fingerprint();
  finishRead(store, readId, summary, summary.fingerprint);
  return summary;
}
