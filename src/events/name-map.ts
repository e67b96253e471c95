/**
 * Event and property renames applied at export time, so the staged event is exactly what is
 * sent. The defaults follow PostHog's own importers; a mapping file extends or replaces them.
 */
import type { MappingFile } from './mapping-schema.js';

export type { MappingFile };

/** Built-in event renames: other products' page and screen views become PostHog's. */
export const DEFAULT_EVENT_RENAMES: Readonly<Record<string, string>> = {
  pageview: '$pageview',
  page_view: '$pageview',
  $mp_web_page_view: '$pageview',
  '[Amplitude] Page Viewed': '$pageview',
  screen_view: '$screen',
  '[Amplitude] Screen Viewed': '$screen',
};

export interface NameMap {
  /** Source event name -> staged name; null means the row is skipped. */
  readonly events: ReadonlyMap<string, string | null>;
  /** Source property key -> staged key; null means the key is dropped. */
  readonly properties: ReadonlyMap<string, string | null>;
}

/**
 * The name map from a mapping file. `sourceDefaults` are a source format's own event renames
 * (Amplitude's `session_start` is dropped, say); they count as defaults, so `replaceDefaults`
 * leaves them out and the file's own entries win over them.
 */
export function buildNameMap(file?: MappingFile, sourceDefaults: Readonly<Record<string, string | null>> = {}): NameMap {
  const events = new Map<string, string | null>();
  if (!file?.replaceDefaults) {
    for (const [from, to] of Object.entries({ ...DEFAULT_EVENT_RENAMES, ...sourceDefaults })) events.set(from, to);
  }
  for (const [from, to] of Object.entries(file?.events ?? {})) events.set(from, to);
  return { events, properties: new Map(Object.entries(file?.properties ?? {})) };
}
