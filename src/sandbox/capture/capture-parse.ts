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

export interface ParsedCapture {
  token: string;
  historicalMigration: boolean;
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

function distinctIdOf(e: Obj, properties: Obj): string | undefined {
  let value = e.distinct_id !== undefined && e.distinct_id !== null ? e.distinct_id : e.$distinct_id;
  if (value === undefined || value === null) value = properties.distinct_id;
  if (value === undefined || value === null) return undefined;
  const text = typeof value === 'string' ? value : typeof value === 'object' ? canonicalJson(value) : String(value);
  return text === '' ? undefined : [...text].slice(0, MAX_DISTINCT_ID_CHARS).join('');
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
  if (uuid !== undefined && uuid !== null && uuid !== '' && (typeof uuid !== 'string' || !UUID.test(uuid.trim()))) return parseError(`invalid uuid at event ${index}`);
  return undefined;
}

function uuidOf(value: unknown, ctx: ParseContext): string {
  const m = typeof value === 'string' ? UUID.exec(value.trim()) : null;
  return m ? `${m[2]}-${m[3]}-${m[4]}-${m[5]}-${m[6]}`.toLowerCase() : ctx.newUuid();
}

/** Checks done after the token: a name and a distinct_id; then the stored form. */
function toEvent(raw: Obj, ctx: ParseContext, sentAtMs: number | undefined): CapturedEvent | CaptureProblem {
  if (raw.event === '') return captureProblem(400, 'missing_event_name', 'event submitted with an empty event name');
  const properties: Obj = { ...((raw.properties as Obj | undefined) ?? {}) };
  const distinctId = distinctIdOf(raw, properties);
  if (distinctId === undefined) return captureProblem(400, 'missing_distinct_id', 'event submitted without a distinct_id');
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

export function parseCapture(text: string, ctx: ParseContext): ParsedCapture | CaptureProblem {
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
  const sentAtMs = (typeof shape.sentAt === 'string' ? parseIsoUtc(shape.sentAt) : undefined) ?? ctx.querySentAtMs;
  const events: CapturedEvent[] = [];
  for (const raw of shape.events as Obj[]) {
    const event = toEvent(raw, ctx, sentAtMs);
    if ('problem' in event) return event;
    events.push(event);
  }
  return { token: shape.token, historicalMigration: shape.historicalMigration, events };
}
