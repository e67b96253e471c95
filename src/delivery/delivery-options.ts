/**
 * The delivery options, declared once: how a run sends (chunk limits, concurrency, rate,
 * retries, time bounds). From this table come the flags of import and resume
 * (cli/options/delivery-flags.ts), the settings a run records and resume's merge of recorded
 * and given, and the settings a run uses. Adding an option is adding a row here, then reading
 * `settings.<key>` where it matters. A row's key is the flag's name in camelCase (what
 * commander calls it, and what existing staging files recorded).
 */
import { isLoopbackHost } from '../config/hosts.js';
import { UsageError } from '../errors.js';
import type { RetryPolicy } from '../http/retry-policy.js';

export interface IntegerRow<K extends string> {
  key: K;
  kind: 'integer';
  /** The flag with its value placeholder, e.g. `--chunk-events <n>`. */
  flag: string;
  min: number;
  /** A bound checked once options are merged (recorded ones included), with why. */
  max?: { value: number; why: string };
  /** The default; a function of the ingestion host where it depends on it. */
  default: number | ((host: string) => number);
  /** What the number counts, for the docs. */
  unit: string;
  help: string;
  /** The default as the help shows it, when not just the number. */
  defaultText?: string;
}

/** A behaviour on by default that a `--no-...` flag turns off, or off by default that a flag turns on. */
interface SwitchRow<K extends string> {
  key: K;
  kind: 'switch';
  /** The flag that turns it off (`--no-gzip`) or on (`--people-last`). */
  flag: string;
  default: boolean;
  help: string;
}

/** A row of an options table: the delivery options below, and the source APIs' (source-apis/api-options.ts). */
export function integer<const K extends string>(key: K, row: Omit<IntegerRow<K>, 'key' | 'kind'>): IntegerRow<K> {
  return { key, kind: 'integer', ...row };
}

function onUnless<const K extends string>(key: K, flag: string, help: string): SwitchRow<K> {
  return { key, kind: 'switch', flag, default: true, help };
}

function offUnless<const K extends string>(key: K, flag: string, help: string): SwitchRow<K> {
  return { key, kind: 'switch', flag, default: false, help };
}

/**
 * Events per second to a non-loopback host. PostHog asks historical imports to stay below
 * "a few thousand events per second across all workers"; 2,000 keeps well inside that.
 */
export const DEFAULT_REMOTE_MAX_RATE = 2000;

export const DELIVERY_OPTIONS = [
  // Official clients send 100 events a request; larger chunks cut the request count tenfold,
  // and the historical pipeline takes large batches well.
  integer('chunkEvents', { flag: '--chunk-events <n>', min: 1, default: 1000, unit: 'events', help: 'most events per request' }),
  // 2 MiB: well under the 20 MB body limit and under the 5 MiB official clients cut at, so a
  // proxy with a smaller limit is unlikely to bite. Bodies stay far from 20 MB whatever is asked.
  integer('chunkBytes', {
    flag: '--chunk-bytes <n>',
    min: 1024,
    max: { value: 16 * 1024 * 1024, why: 'PostHog refuses bodies over 20 MB' },
    default: 2 * 1024 * 1024,
    unit: 'bytes (uncompressed)',
    help: 'most uncompressed body bytes per request',
    defaultText: '2 MiB, at most 16 MiB',
  }),
  // Person and group updates always go one at a time, whatever this says.
  integer('concurrency', { flag: '--concurrency <n>', min: 1, default: 4, unit: 'requests', help: 'requests in flight' }),
  integer('maxRate', {
    flag: '--max-rate <events/s>',
    min: 0,
    default: (host) => (isLoopbackHost(new URL(host).hostname) ? 0 : DEFAULT_REMOTE_MAX_RATE),
    unit: 'events/s (0 = no limit)',
    help: 'events per second, 0 = no limit',
    defaultText: `${DEFAULT_REMOTE_MAX_RATE} to remote hosts, none on loopback`,
  }),
  integer('requestTimeoutMs', { flag: '--request-timeout-ms <ms>', min: 1, default: 60_000, unit: 'ms', help: 'bound for one request' }),
  integer('interruptGraceMs', { flag: '--interrupt-grace-ms <ms>', min: 0, default: 10_000, unit: 'ms', help: 'after Ctrl-C, time for requests in flight' }),
  integer('retryInitialMs', { flag: '--retry-initial-ms <ms>', min: 0, default: 500, unit: 'ms', help: 'first retry delay before jitter' }),
  integer('retryMaxDelayMs', { flag: '--retry-max-delay-ms <ms>', min: 0, default: 30_000, unit: 'ms', help: 'longest computed retry delay' }),
  integer('retryBudgetMs', { flag: '--retry-budget-ms <ms>', min: 0, default: 300_000, unit: 'ms', help: 'most waiting per chunk before the run stops, resumable' }),
  // A server refusing everything must not turn a migration into dead letters (refusal-guard.ts).
  integer('maxDeadLetters', {
    flag: '--max-dead-letters <n>',
    min: 0,
    default: 100,
    unit: 'events (or 1% of the run, if more)',
    help: 'most events refused one by one before the run stops (or 1% of the run, if more)',
  }),
  onUnless('gzip', '--no-gzip', 'send bodies uncompressed'),
  // Default order: group updates, person updates, events, then the users file's values sent
  // again; so each event is stored with its person's and groups' properties (see send-order.ts).
  offUnless('peopleLast', '--people-last', 'send events first, then person and group updates (events then keep empty person and group properties)'),
  // PostHog asks for historical events at least 48 hours old.
  offUnless('includeRecent', '--include-recent', 'also send events of the last 48 hours (refused otherwise)'),
] as const;

export type DeliveryOption = (typeof DELIVERY_OPTIONS)[number];

/** How a run sends: one value per option. */
export type DeliverySettings = { [O in DeliveryOption as O['key']]: O extends { kind: 'integer' } ? number : boolean };

/** The options the user gave (on the command line, or recorded with a run). */
export type GivenSettings = Partial<DeliverySettings>;

/** The flag's name without its placeholder, e.g. `--chunk-events`. */
export function flagName(option: { flag: string }): string {
  return option.flag.split(' ')[0]!;
}

/** The default of an option for runs to `host`. */
export function defaultValue(option: DeliveryOption, host: string): number | boolean {
  return typeof option.default === 'function' ? option.default(host) : option.default;
}

/** Given settings (as recorded in a staging file, say), keeping only known keys of the right type: numbers and booleans, never anything else. */
export function recordedSettings(value: Readonly<Record<string, unknown>>): GivenSettings {
  const out: Record<string, unknown> = {};
  for (const option of DELIVERY_OPTIONS) {
    const v = value[option.key];
    if (option.kind === 'switch' ? typeof v === 'boolean' : typeof v === 'number') out[option.key] = v;
  }
  return out as GivenSettings;
}

/** What resume runs with: the run's recorded options, overridden by those given now. */
export function mergeSettings(recorded: Readonly<Record<string, unknown>>, given: GivenSettings): GivenSettings {
  return { ...recordedSettings(recorded), ...given };
}

/** The settings of a run to `host`: what was given over the defaults, within each option's bounds. */
export function resolveSettings(host: string, given: GivenSettings): DeliverySettings {
  const settings: Record<string, unknown> = {};
  for (const option of DELIVERY_OPTIONS) {
    const value = given[option.key];
    const max = option.kind === 'integer' ? option.max : undefined;
    if (max !== undefined && typeof value === 'number' && value > max.value) {
      throw new UsageError(`${flagName(option)} ${value}: at most ${max.value} (${max.why})`);
    }
    settings[option.key] = value ?? defaultValue(option, host);
  }
  return settings as DeliverySettings;
}

/** The retry policy of each chunk, from the settings. */
export function retryPolicy(settings: DeliverySettings): RetryPolicy {
  return { initialDelayMs: settings.retryInitialMs, maxDelayMs: settings.retryMaxDelayMs, maxTotalWaitMs: settings.retryBudgetMs };
}
