/** The source formats `--from` accepts: each a reader of decoded text, and how files are found. */
import { readCsv } from './csv-source.js';
import { readJsonl } from './jsonl-source.js';
import type { SourceReader } from './source-item.js';
import { AMPLITUDE_EVENT_RENAMES, readAmplitude } from './vendors/amplitude.js';
import { MIXPANEL_EVENT_RENAMES, readMixpanel } from './vendors/mixpanel.js';
import { readPostHog } from './vendors/posthog.js';

export interface SourceFormat {
  reader: SourceReader;
  /** Names read from a directory or a zip archive (before an optional `.gz`); lowercase. */
  extensions: readonly string[];
  /**
   * What `--timezone` means: `rows`, the zone of times written without one; `project`, the
   * Mixpanel project zone its `time` values were written in; `utc`, not accepted (always UTC).
   */
  timezone: 'rows' | 'project' | 'utc';
  /** Event renames the format adds to the built-in ones (null drops the event). */
  eventRenames?: Readonly<Record<string, string | null>>;
}

const JSON_LINES = ['.jsonl', '.ndjson', '.json'] as const;

export const SOURCE_FORMATS: Readonly<Record<string, SourceFormat>> = {
  csv: { reader: readCsv, extensions: ['.csv'], timezone: 'rows' },
  jsonl: { reader: readJsonl, extensions: JSON_LINES, timezone: 'rows' },
  mixpanel: { reader: readMixpanel, extensions: [...JSON_LINES, '.txt'], timezone: 'project', eventRenames: MIXPANEL_EVENT_RENAMES },
  amplitude: { reader: readAmplitude, extensions: JSON_LINES, timezone: 'utc', eventRenames: AMPLITUDE_EVENT_RENAMES },
  posthog: { reader: readPostHog, extensions: JSON_LINES, timezone: 'utc' },
};

export function formatNames(): string[] {
  return Object.keys(SOURCE_FORMATS);
}
