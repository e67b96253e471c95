/**
 * export-source's filters without code: --only-events and --skip-events on the event's name,
 * --since and --until on its time (half-open: since <= time < until). They choose among rows
 * before the transform and the event rules, so a row left out is never rejected for a fault of
 * its own, and the transform never sees it. Each row left out is counted as skipped, with the
 * flag that left it out.
 *
 * A name matches as the source wrote it or as the mapping renamed it (`pageview` or
 * `$pageview`), so a list may use either. Only events are filtered: a person or group update
 * (a Segment identify or group call) keeps the latest state of someone, and is always kept.
 * A row whose name or time cannot be read is not filtered: the rules reject it, with its reason.
 */
import type { CandidateEvent, EventRules } from './build-event.js';
import { EventKind } from './staged-event.js';
import { parseTimestamp } from './timestamp.js';

/** The filters as plain data (they cross to worker threads). */
export interface RowFilters {
  onlyEvents?: readonly string[];
  skipEvents?: readonly string[];
  /** UTC ms: rows before it are skipped. */
  sinceMs?: number;
  /** UTC ms: rows at or after it are skipped. */
  untilMs?: number;
}

/** The reason of a row skipped because --map (or a source default) maps its event to null. */
export const SKIPPED_BY_MAP = 'map';

/** The filters made ready for many rows. */
export interface RowSelector {
  only?: ReadonlySet<string>;
  skip?: ReadonlySet<string>;
  sinceMs?: number;
  untilMs?: number;
}

export function rowSelector(filters: RowFilters | undefined): RowSelector | undefined {
  if (filters === undefined) return undefined;
  const { onlyEvents, skipEvents, sinceMs, untilMs } = filters;
  if (onlyEvents === undefined && skipEvents === undefined && sinceMs === undefined && untilMs === undefined) return undefined;
  return {
    only: onlyEvents === undefined ? undefined : new Set(onlyEvents),
    skip: skipEvents === undefined ? undefined : new Set(skipEvents),
    sinceMs,
    untilMs,
  };
}

function nameReason(source: string, mapped: string, selector: RowSelector): string | undefined {
  if (selector.only !== undefined && !selector.only.has(source) && !selector.only.has(mapped)) return '--only-events';
  if (selector.skip !== undefined && (selector.skip.has(source) || selector.skip.has(mapped))) return '--skip-events';
  return undefined;
}

function timeReason(candidate: CandidateEvent, rules: EventRules, selector: RowSelector): string | undefined {
  const time = parseTimestamp(candidate.timestamp, '', rules.zone);
  if (!time.ok) return undefined;
  if (selector.sinceMs !== undefined && time.ms < selector.sinceMs) return '--since';
  if (selector.untilMs !== undefined && time.ms >= selector.untilMs) return '--until';
  return undefined;
}

/**
 * Why the row is skipped (SKIPPED_BY_MAP, or the flag that leaves it out), or undefined when it
 * goes on to the transform and the rules.
 */
export function skipReason(candidate: CandidateEvent, rules: EventRules, selector: RowSelector | undefined): string | undefined {
  const source = candidate.event;
  const named = typeof source === 'string' && source.trim() !== '';
  const mapped = named && rules.nameMap.events.has(source) ? rules.nameMap.events.get(source)! : source;
  if (mapped === null) return SKIPPED_BY_MAP;
  if (selector === undefined || (candidate.kind ?? rules.kind ?? EventKind.event) !== EventKind.event) return undefined;
  if (named && (selector.only !== undefined || selector.skip !== undefined)) {
    const reason = nameReason(source, mapped as string, selector);
    if (reason !== undefined) return reason;
  }
  return selector.sinceMs !== undefined || selector.untilMs !== undefined ? timeReason(candidate, rules, selector) : undefined;
}
