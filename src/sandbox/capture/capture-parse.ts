/**
 * Capture's request rules, as PostHog's capture service applies them. Three body shapes: the
 * batch (`{api_key, historical_migration?, sent_at?, batch: [...]}`), an array of events, one
 * event. Tokens: `api_key`/`token` on a batch; `token`, `$token`, `api_key` or
 * `properties.token` on events. All or nothing: one bad event refuses the whole request.
 */
import { canonicalJson } from '../../events/canonical-json.js';
import { captureProblem, type CaptureProblem } from './capture-problem.js';
import { parseIsoUtc, resolveTimestamp } from './event-timestamp.js';

export interface CapturedEvent {
  uuid: string;
  event: string;
  distinctId: string;
  /** Stored time, ISO 8601 UTC with ms, after skew correction. */
  timestamp: string;
  properties: Record<string, unknown>;
}

/** A request that passed every check (what count-only mode needs). */
export interface CheckedCapture {
  token: string;
  historicalMigration: boolean;
  eventCount: number;
}

/** A request that passed every check, with its events in their stored form. */
export interface ParsedCapture extends CheckedCapture {
  events: CapturedEvent[];
}

export interface ParseContext {
  nowMs: number;
  /** `sent_at` from the query (`_` or `sent_at`, in ms), used when the body has none. */
  querySentAtMs?: number;
  newUuid(): string;
}

type Obj = Record<string, unknown>;
const MAX_DISTINCT_ID_CHARS = 200;
const UUID = /^(urn:uuid:)?\{?([0-9a-f]{8})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{12})\}?$/i;
const HYPHEN = 0x2d;

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const parseError = (detail: string): CaptureProblem => captureProblem(400, 'invalid_payload', `failed to parse request: ${detail}`);

function eventToken(e: Obj): string | undefined {
  for (const value of [e.token, e.$token, e.api_key, isObject(e.properties) ? e.properties.token : undefined]) {
    if (typeof value === 'string') return value;
  }
  return undefined;
}

function checkToken(token: string | undefined): string | CaptureProblem {
  if (token === undefined) return captureProblem(401, 'no_token', 'event submitted without an api_key');
  if (token.trim() === '') return captureProblem(401, 'invalid_token', 'API key is not valid: empty');
  if (token.startsWith('phx_')) return captureProblem(401, 'invalid_token', 'API key is not valid: personal api key');
  return token;
}

function arrayToken(events: Obj[]): string | CaptureProblem {
  const tokens = new Set(events.map(eventToken).filter((t) => t !== undefined));
  if (tokens.size > 1) return captureProblem(401, 'multiple_tokens', 'batch submitted with inconsistent api_key values');
  return checkToken([...tokens][0]);
}

/**
 * The distinct_id that counts: top level (or `$distinct_id`), else `properties.distinct_id`;
 * null or "" is missing (undefined).
 */
function distinctIdValue(e: Obj): unknown {
  let value = e.distinct_id ?? e.$distinct_id;
  if (value === undefined || value === null) value = isObject(e.properties) ? e.properties.distinct_id : undefined;
  return value === undefined || value === null || value === '' ? undefined : value;
}

/** Its stored text: numbers stringified, objects as canonical JSON, cut at 200 characters. */
function distinctIdText(value: unknown): string {
  const text = typeof value === 'string' ? value : typeof value === 'object' ? canonicalJson(value) : String(value);
  // Characters are code points: only a text of more than 200 UTF-16 units can have more.
  return text.length <= MAX_DISTINCT_ID_CHARS ? text : [...text].slice(0, MAX_DISTINCT_ID_CHARS).join('');
}

const isHexDigit = (c: number): boolean => (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);

/** The usual form (8-4-4-4-12 hex digits, any case), which UUID accepts, without its cost. */
function isPlainUuid(text: string): boolean {
  if (text.length !== 36) return false;
  for (let i = 0; i < 36; i++) {
    const c = text.charCodeAt(i);
    const hyphenHere = i === 8 || i === 13 || i === 18 || i === 23;
    if (hyphenHere ? c !== HYPHEN : !isHexDigit(c)) return false;
  }
  return true;
}

function mergeSet(properties: Obj, e: Obj, key: '$set' | '$set_once'): void {
  if (isObject(e[key])) properties[key] = { ...(e[key] as Obj), ...(isObject(properties[key]) ? (properties[key] as Obj) : {}) };
}

/** What serde would refuse while reading the body: wrong types, no name field, a bad uuid. */
function parseProblem(raw: unknown, index: number): CaptureProblem | undefined {
  if (!isObject(raw)) return parseError(`event ${index} is not an object`);
  if (raw.properties !== undefined && raw.properties !== null && !isObject(raw.properties)) return parseError(`properties of event ${index} is not an object`);
  if (typeof raw.event !== 'string') return parseError(`missing field \`event\` at event ${index}`);
  const uuid = raw.uuid;
  if (uuid === undefined || uuid === null || uuid === '') return undefined;
  if (typeof uuid !== 'string' || !(isPlainUuid(uuid) || UUID.test(uuid.trim()))) return parseError(`invalid uuid at event ${index}`);
  return undefined;
}

function uuidOf(value: unknown, ctx: ParseContext): string {
  if (typeof value === 'string' && isPlainUuid(value)) return value.toLowerCase();
  const m = typeof value === 'string' ? UUID.exec(value.trim()) : null;
  return m ? `${m[2]}-${m[3]}-${m[4]}-${m[5]}-${m[6]}`.toLowerCase() : ctx.newUuid();
}

/** Checks done after the token, in both modes: a name and a distinct_id. */
function eventProblem(raw: Obj): CaptureProblem | undefined {
  if (raw.event === '') return captureProblem(400, 'missing_event_name', 'event submitted with an empty event name');
  if (distinctIdValue(raw) === undefined) return captureProblem(400, 'missing_distinct_id', 'event submitted without a distinct_id');
  return undefined;
}

/** The stored form of an event that passed every check. */
function toEvent(raw: Obj, ctx: ParseContext, sentAtMs: number | undefined): CapturedEvent {
  const properties: Obj = { ...((raw.properties as Obj | undefined) ?? {}) };
  const distinctId = distinctIdText(distinctIdValue(raw));
  mergeSet(properties, raw, '$set');
  mergeSet(properties, raw, '$set_once');
  const ms = resolveTimestamp({ timestamp: raw.timestamp, offset: raw.offset, ignoreSentAt: properties.$ignore_sent_at === true }, ctx.nowMs, sentAtMs);
  return { uuid: uuidOf(raw.uuid, ctx), event: raw.event as string, distinctId, timestamp: new Date(ms).toISOString(), properties };
}

interface Shape {
  token: string | CaptureProblem;
  events: unknown[];
  historicalMigration: boolean;
  sentAt?: unknown;
}

function shapeOf(body: unknown): Shape | CaptureProblem {
  if (Array.isArray(body)) return { token: arrayToken(body.filter(isObject)), events: body, historicalMigration: false };
  if (!isObject(body)) return parseError('expected a JSON object or array');
  if (Array.isArray(body.batch)) {
    const token = typeof body.api_key === 'string' ? body.api_key : typeof body.token === 'string' ? body.token : undefined;
    return { token: checkToken(token), events: body.batch, historicalMigration: body.historical_migration === true, sentAt: body.sent_at };
  }
  return { token: checkToken(eventToken(body)), events: [body], historicalMigration: false };
}

interface CheckedBody extends CheckedCapture {
  events: Obj[];
  sentAt?: unknown;
}

/** Every check, in capture's order: JSON, shape, events' types and uuids, token, then names and distinct_ids. */
function checkBody(text: string): CheckedBody | CaptureProblem {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    return parseError((error as Error).message);
  }
  const shape = shapeOf(body);
  if ('problem' in shape) return shape;
  if (shape.events.length === 0) return captureProblem(400, 'empty_batch', 'request holds no event');
  for (let i = 0; i < shape.events.length; i++) {
    const problem = parseProblem(shape.events[i], i);
    if (problem) return problem;
  }
  if (typeof shape.token !== 'string') return shape.token;
  const events = shape.events as Obj[];
  for (const raw of events) {
    const problem = eventProblem(raw);
    if (problem) return problem;
  }
  return { token: shape.token, historicalMigration: shape.historicalMigration, eventCount: events.length, events, sentAt: shape.sentAt };
}

/** Checks a request as parseCapture does, building nothing (count-only mode). */
export function checkCapture(text: string): CheckedCapture | CaptureProblem {
  const checked = checkBody(text);
  if ('problem' in checked) return checked;
  return { token: checked.token, historicalMigration: checked.historicalMigration, eventCount: checked.eventCount };
}

export function parseCapture(text: string, ctx: ParseContext): ParsedCapture | CaptureProblem {
  const checked = checkBody(text);
  if ('problem' in checked) return checked;
  const sentAtMs = (typeof checked.sentAt === 'string' ? parseIsoUtc(checked.sentAt) : undefined) ?? ctx.querySentAtMs;
  const events = checked.events.map((raw) => toEvent(raw, ctx, sentAtMs));
  return { token: checked.token, historicalMigration: checked.historicalMigration, eventCount: checked.eventCount, events };
}
