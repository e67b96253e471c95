/**
 * Capture's request rules, as PostHog's capture service applies them. Three body shapes: the
 * batch (`{api_key, historical_migration?, sent_at?, batch: [...]}`), an array of events, one
 * event. Tokens: `api_key`/`token` on a batch; `token`, `$token`, `api_key` or
 * `properties.token` on events. All or nothing: one bad event refuses the whole request. The
 * one exception is size: capture sends events on one by one, and an event over the per-event
 * limit fails the request after the events before it went through (`tooBigAt`).
 */
import { captureProblem, type CaptureProblem } from './capture-problem.js';
import { distinctIdText } from './distinct-id.js';
import { batchFieldProblem, distinctIdSource, duplicateBatchField, duplicateEventField, eventFieldProblem, isObject, offsetWrittenAsInteger, uuidForm } from './event-fields.js';
import { eventOverLimit, noEventOverLimit, underLimitAtAnySize } from './event-size.js';
import { parseIsoUtc, resolveTimestamp, type TimestampWarning } from './event-timestamp.js';
import { eventTimeText } from '../stored-time.js';
import { readJson, type JsonRead } from './json-read.js';
import type { ObjectScan } from './json-scan.js';
import { CAPTURE_MAX_EVENT_BYTES } from '../../posthog/limits.js';

type Obj = Record<string, unknown>;

export interface CapturedEvent {
  uuid: string;
  event: string;
  distinctId: string;
  /** Stored time, ISO 8601 UTC with ms. */
  timestamp: string;
  properties: Obj;
  /** What ingestion would record as an ingestion warning about this event. */
  warning?: TimestampWarning;
}

/** A request that passed every check (what count-only mode needs). */
export interface CheckedCapture {
  token: string;
  historicalMigration: boolean;
  eventCount: number;
  /** Index of the first event over the per-event size limit: the request fails (413) there. */
  tooBigAt?: number;
}

/** A request that passed every check, with its events (up to `tooBigAt`) in their stored form. */
export interface ParsedCapture extends CheckedCapture {
  events: CapturedEvent[];
}

/** The JSON text of a request and its UTF-8 bytes. */
export interface JsonPayload {
  bytes: Buffer;
  text: string;
  /** `text` holds the bytes one char each (latin1), not decoded (count-only; see checkCapture). */
  latin1?: boolean;
}

export interface CheckOptions {
  /** Per-event limit (capture's Kafka message size). Default 1,000,000. */
  maxEventBytes?: number;
}

export interface ParseContext extends CheckOptions {
  nowMs: number;
  /** `sent_at` from the query (`_` or `sent_at`, in ms), used when the body has none. */
  querySentAtMs?: number;
  newUuid(): string;
}

const parseError = (detail: string): CaptureProblem => captureProblem(400, 'invalid_payload', `failed to parse request: ${detail}`);

function eventToken(e: Obj): string | undefined {
  const own = e.token ?? e.$token ?? e.api_key;
  if (typeof own === 'string') return own;
  return isObject(e.properties) && typeof e.properties.token === 'string' ? e.properties.token : undefined;
}

function checkToken(token: string | undefined): string | CaptureProblem {
  if (token === undefined) return captureProblem(401, 'no_token', 'event submitted without an api_key');
  if (token.trim() === '') return captureProblem(401, 'invalid_token', 'API key is not valid: empty');
  if (token.startsWith('phx_')) return captureProblem(401, 'invalid_token', 'API key is not valid: personal api key');
  return token;
}

function eventsToken(events: Obj[]): string | CaptureProblem {
  const tokens = new Set(events.map(eventToken).filter((t) => t !== undefined));
  if (tokens.size > 1) return captureProblem(401, 'multiple_tokens', 'batch submitted with inconsistent api_key values');
  return checkToken([...tokens][0]);
}

/** The distinct_id that counts: top level (or `$distinct_id`) unless null, else `properties.distinct_id`. */
function distinctIdValue(e: Obj): { value: unknown; inProperties: boolean } {
  const own = e.distinct_id ?? e.$distinct_id;
  if (own !== undefined && own !== null) return { value: own, inProperties: false };
  return { value: isObject(e.properties) ? e.properties.distinct_id : undefined, inProperties: true };
}

const spanText = (payload: JsonPayload, span: ObjectScan | undefined): string => (span === undefined ? '{}' : payload.bytes.toString('utf8', span.start, span.end));

interface Shape {
  token: string | CaptureProblem;
  events: unknown[];
  /** The text of event `i`, found by the scan when first asked. */
  spanAt: (i: number) => ObjectScan | undefined;
  historicalMigration: boolean;
  sentAt?: unknown;
  /** How deep the events' objects are (the body is 1). */
  eventDepth: number;
}

function batchShape(body: Obj, read: JsonRead, payload: JsonPayload): Shape | CaptureProblem {
  const duplicate = duplicateBatchField(body, read.noRepeatedKeys ? undefined : read.scan().top, () => spanText(payload, read.scan().top));
  if (duplicate !== undefined) return parseError(`duplicate field \`${duplicate}\``);
  if (!Array.isArray(body.batch)) return parseError('`batch` is not an array');
  const fieldProblem = batchFieldProblem(body);
  if (fieldProblem !== undefined) return parseError(fieldProblem);
  const token = (body.token ?? body.api_key) as string | undefined | null;
  return {
    token: token === undefined || token === null ? eventsToken(body.batch.filter(isObject)) : checkToken(token),
    events: body.batch,
    spanAt: (i) => read.scan().events[i],
    historicalMigration: body.historical_migration === true,
    sentAt: body.sent_at,
    eventDepth: 3,
  };
}

function shapeOf(read: JsonRead, payload: JsonPayload): Shape | CaptureProblem {
  const body = read.body;
  if (Array.isArray(body)) return { token: eventsToken(body.filter(isObject)), events: body, spanAt: (i) => read.scan().events[i], historicalMigration: false, eventDepth: 2 };
  if (!isObject(body)) return parseError('expected a JSON object or array');
  if (Object.hasOwn(body, 'batch')) return batchShape(body, read, payload);
  return { token: checkToken(eventToken(body)), events: [body], spanAt: () => read.scan().top, historicalMigration: false, eventDepth: 1 };
}

/** What serde would refuse while reading one event: not an object, a field twice or of the wrong type. */
function readProblem(raw: unknown, index: number, shape: Shape, read: JsonRead, payload: JsonPayload): CaptureProblem | undefined {
  if (!isObject(raw)) return parseError(`event ${index} is not an object`);
  const text = (): string => spanText(payload, shape.spanAt(index));
  const duplicate = duplicateEventField(raw, read.noRepeatedKeys ? undefined : shape.spanAt(index), text);
  if (duplicate !== undefined) return parseError(`duplicate field \`${duplicate}\` at event ${index}`);
  const problem = eventFieldProblem(raw);
  if (problem !== undefined) return parseError(`${problem} at event ${index}`);
  if (typeof raw.offset === 'number' && !offsetWrittenAsInteger(text())) return parseError(`\`offset\` is not an integer at event ${index}`);
  return undefined;
}

const isBlank = (distinctId: string): boolean => distinctId.replaceAll('\0', '\uFFFD').trim() === '';

/** Checks capture makes after the token, event by event: a name, a distinct_id, a cookieless flag. */
function processProblem(raw: Obj): CaptureProblem | undefined {
  if (raw.event === '') return captureProblem(400, 'missing_event_name', 'event submitted with an empty event name');
  const { value } = distinctIdValue(raw);
  if (value === undefined || value === null || (typeof value === 'string' && isBlank(value))) {
    return captureProblem(400, 'missing_distinct_id', 'event submitted without a distinct_id');
  }
  const cookieless = isObject(raw.properties) ? raw.properties.$cookieless_mode : undefined;
  if (cookieless !== undefined && typeof cookieless !== 'boolean') {
    return captureProblem(400, 'invalid_cookieless_mode', 'event submitted with an invalid $cookieless_mode (not a boolean)');
  }
  return undefined;
}

interface CheckedBody extends CheckedCapture {
  events: Obj[];
  spanAt: (i: number) => ObjectScan | undefined;
  sentAt?: unknown;
}

/** Capture sends events on one by one: the first one over the limit, if any. */
function firstTooBig(payload: JsonPayload, shape: Shape, read: JsonRead, maxEventBytes: number): number | undefined {
  // No event can be over the limit when the whole body, every byte escaped, is under it.
  if (underLimitAtAnySize(payload.bytes.length, maxEventBytes)) return undefined;
  if (noEventOverLimit(payload.bytes.length, read.leastBytes, read.largestAtDepth[shape.eventDepth]!, maxEventBytes)) return undefined;
  for (let i = 0; i < shape.events.length; i++) {
    const span = shape.spanAt(i);
    if (span !== undefined && eventOverLimit(payload.bytes, span, maxEventBytes)) return i;
  }
  return undefined;
}

/** Every check, in capture's order: JSON, shape, each event's fields, token, then each event's name and distinct_id. */
function checkBody(payload: JsonPayload, options: CheckOptions): CheckedBody | CaptureProblem {
  const read = readJson(payload.bytes, payload.text);
  if ('readProblem' in read) return parseError(read.readProblem);
  const shape = shapeOf(read, payload);
  if ('problem' in shape) return shape;
  if (shape.events.length === 0) return captureProblem(400, 'empty_batch', 'request holds no event');
  for (let i = 0; i < shape.events.length; i++) {
    const problem = readProblem(shape.events[i], i, shape, read, payload);
    if (problem) return problem;
  }
  if (typeof shape.token !== 'string') return shape.token;
  const events = shape.events as Obj[];
  for (const raw of events) {
    const problem = processProblem(raw);
    if (problem) return problem;
  }
  const tooBigAt = firstTooBig(payload, shape, read, options.maxEventBytes ?? CAPTURE_MAX_EVENT_BYTES);
  return {
    token: shape.token,
    historicalMigration: shape.historicalMigration,
    eventCount: events.length,
    ...(tooBigAt === undefined ? {} : { tooBigAt }),
    events,
    spanAt: shape.spanAt,
    sentAt: shape.sentAt,
  };
}

const asPayload = (input: string | JsonPayload): JsonPayload => (typeof input === 'string' ? { bytes: Buffer.from(input), text: input } : input);

/** Checks a request as parseCapture does, building nothing (count-only mode). */
export function checkCapture(input: string | JsonPayload, options: CheckOptions = {}): CheckedCapture | CaptureProblem {
  const payload = asPayload(input);
  let checked = checkBody(payload, options);
  if (payload.latin1 && !passesDecoded(checked)) checked = checkBody({ bytes: payload.bytes, text: payload.bytes.toString('utf8') }, options);
  if ('problem' in checked) return checked;
  const { historicalMigration, eventCount, tooBigAt } = checked;
  const token = payload.latin1 ? decoded(checked.token) : checked.token;
  return tooBigAt === undefined ? { token, historicalMigration, eventCount } : { token, historicalMigration, eventCount, tooBigAt };
}

const hasNonAscii = (text: string): boolean => /[^\x00-\x7f]/.test(text);
/** A string of latin1 text (one char per UTF-8 byte) as the text it is. */
const decoded = (text: string): string => (hasNonAscii(text) ? Buffer.from(text, 'latin1').toString('utf8') : text);

/**
 * Whether a request checked on latin1 text passes when its strings are decoded. Structure,
 * keys (latin1 maps distinct byte strings to distinct strings), types and sizes are the same
 * either way; only the checks that read a string's content can differ: a token or distinct_id
 * that is blank only once decoded (Unicode spaces). A refusal, or any doubt, is checked again
 * on the decoded text, so a refusal and its message are exactly capture's.
 */
function passesDecoded(checked: CheckedBody | CaptureProblem): boolean {
  if ('problem' in checked) return false;
  if (hasNonAscii(checked.token) && typeof checkToken(decoded(checked.token)) !== 'string') return false;
  for (const event of checked.events) {
    const { value } = distinctIdValue(event);
    if (typeof value === 'string' && hasNonAscii(value) && isBlank(decoded(value))) return false;
  }
  return true;
}

interface EventContext {
  ctx: ParseContext;
  payload: JsonPayload;
  sentAtMs: number | undefined;
}

function uuidOf(value: unknown, ctx: ParseContext): string {
  return (typeof value === 'string' && value !== '' ? uuidForm(value) : undefined) ?? ctx.newUuid();
}

/** The stored form of an event that passed every check. */
function toEvent(raw: Obj, spanOf: () => ObjectScan | undefined, at: EventContext): CapturedEvent {
  const properties: Obj = { ...((raw.properties as Obj | undefined) ?? {}) };
  const { value, inProperties } = distinctIdValue(raw);
  const numberSource = typeof value === 'number' ? distinctIdSource(spanText(at.payload, spanOf()), inProperties) : undefined;
  // Top-level $set / $set_once win over the ones in properties, as ingestion merges them.
  for (const key of ['$set', '$set_once'] as const) {
    if (isObject(raw[key])) properties[key] = { ...(isObject(properties[key]) ? properties[key] : {}), ...raw[key] };
  }
  if (at.sentAtMs !== undefined) properties.$sent_at = new Date(at.sentAtMs).toISOString();
  const input = { timestamp: raw.timestamp as string | null | undefined, offset: raw.offset as number | null | undefined, ignoreSentAt: properties.$ignore_sent_at === true };
  const { ms, subMsUs, warning } = resolveTimestamp(input, at.ctx.nowMs, at.sentAtMs);
  const event: CapturedEvent = { uuid: uuidOf(raw.uuid, at.ctx), event: raw.event as string, distinctId: distinctIdText(value, numberSource), timestamp: eventTimeText(ms, subMsUs), properties };
  if (warning !== undefined) event.warning = warning;
  return event;
}

export function parseCapture(input: string | JsonPayload, ctx: ParseContext): ParsedCapture | CaptureProblem {
  const payload = asPayload(input);
  const checked = checkBody(payload, ctx);
  if ('problem' in checked) return checked;
  const sentAtMs = (typeof checked.sentAt === 'string' ? parseIsoUtc(checked.sentAt) : undefined) ?? ctx.querySentAtMs;
  const at: EventContext = { ctx, payload, sentAtMs };
  const upTo = checked.tooBigAt ?? checked.events.length;
  const events = checked.events.slice(0, upTo).map((raw, i) => toEvent(raw, () => checked.spanAt(i), at));
  const { token, historicalMigration, eventCount, tooBigAt } = checked;
  return { token, historicalMigration, eventCount, ...(tooBigAt === undefined ? {} : { tooBigAt }), events };
}
