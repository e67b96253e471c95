/**
 * argv -> command input, table-driven and without spawning: the real program parses each
 * command line (flags, defaults, value parsers), then the command's own toInput makes the use
 * case's input from the options, exactly as its action does.
 */
import { CommanderError } from 'commander';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportRequest, exportsPaging } from '../../src/cli/commands/exports/export-args.js';
import { toStageApiInput } from '../../src/cli/commands/export-source/api-source-input.js';
import { toExportSourceInput, type ExportSourceOptions } from '../../src/cli/commands/export-source/export-source-input.js';
import { defaultUpdateTimestampMs, toIdentifyGroupsInput, toIdentifyUsersInput, type IdentifyOptions } from '../../src/cli/commands/identify/identify-input.js';
import { toImportInput, type ImportOptions } from '../../src/cli/commands/import/import-input.js';
import { toResumeInput, type ResumeOptions } from '../../src/cli/commands/resume/resume-input.js';
import { toSandboxOptions, type SandboxCommandOptions } from '../../src/cli/commands/sandbox/sandbox-input.js';
import { givenSettings } from '../../src/cli/options/delivery-flags.js';
import { UsageError } from '../../src/errors.js';
import { MIXPANEL_EVENT_RENAMES } from '../../src/sources/vendors/mixpanel.js';
import { parseArgv } from '../helpers/parse-argv.js';

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);

async function exportSourceInput(args: string[]) {
  const {
    args: [files],
    options,
  } = await parseArgv(['export-source', ...args]);
  return toExportSourceInput(files as string[], options as unknown as ExportSourceOptions, NOW);
}

/** What this machine's time zone database calls CET (Europe/Brussels in recent ones). */
const CET_CANONICAL = new Intl.DateTimeFormat('en-US', { timeZone: 'CET' }).resolvedOptions().timeZone;

describe('export-source', () => {
  it('makes the staging input with the defaults', async () => {
    expect(await exportSourceInput(['--from', 'csv', 'a.csv', 'exports/'])).toEqual({
      files: ['a.csv', 'exports/'],
      staging: './migration.db',
      command: 'export-source',
      format: 'csv',
      workers: undefined,
      readerOptions: { inferTypes: true, columns: {}, timezone: undefined, trim: true },
      expandInputs: true,
      replaceChanged: false,
      reread: false,
      defaulted: ['encoding', 'delimiter', 'trim', 'minTime', 'segmentGroupType'],
      rules: { mapping: undefined, formatRenames: undefined, timezone: undefined, nowMs: NOW, minTimeMs: Date.UTC(2000, 0, 1), groups: [] },
      ingestion: { geoipFromIp: true, importSource: 'csv' },
      recordedOptions: { map: null, mapping: null, timezone: null, inferTypes: true, columns: {}, groups: [], minTime: '2000-01-01T00:00:00.000Z', geoip: true, sessionize: null },
      passes: {},
    });
  });

  it('--no-geoip: every row without GeoIP, recorded with the read', async () => {
    const input = await exportSourceInput(['--from', 'amplitude', 'a.jsonl', '--no-geoip']);
    expect(input.ingestion).toEqual({ geoipFromIp: false, importSource: 'amplitude' });
    expect(input.recordedOptions.geoip).toBe(false);
  });

  it.each<[string, string[], number]>([
    ['a day is midnight UTC', ['--min-time', '1995-06-01'], Date.UTC(1995, 5, 1)],
    ['--allow-before is the same option', ['--allow-before', '1970-01-01'], 0],
    ['a time with a zone', ['--min-time', '2010-01-01T00:00:00+02:00'], Date.UTC(2009, 11, 31, 22)],
    ['both names with one value', ['--min-time', '1999-01-01', '--allow-before', '1999-01-01'], Date.UTC(1999, 0, 1)],
  ])('--min-time: %s', async (_name, args, minTimeMs) => {
    const input = await exportSourceInput(['--from', 'csv', 'a.csv', ...args]);
    expect(input.rules.minTimeMs).toBe(minTimeMs);
    expect(input.recordedOptions.minTime).toBe(new Date(minTimeMs).toISOString());
  });

  it('records the mapping file by its content, whatever its path, and passes --replace-changed', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'argv-'));
    writeFileSync(join(dir, 'a.json'), '{"events": {"a": "b"}}');
    writeFileSync(join(dir, 'b.json'), '{ "events": { "a": "b" }, "replaceDefaults": false }');
    const a = await exportSourceInput(['--from', 'csv', 'x.csv', '--map', join(dir, 'a.json'), '--replace-changed']);
    const b = await exportSourceInput(['--from', 'csv', 'x.csv', '--map', join(dir, 'b.json')]);
    expect(a.recordedOptions.mapping).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(a.recordedOptions.mapping).toBe(b.recordedOptions.mapping);
    expect([a.replaceChanged, b.replaceChanged]).toEqual([true, false]);
  });

  it.each<[string, string[], Record<string, unknown>]>([
    [
      'CSV columns, groups, types, workers, zone, staging file',
      [
        '--from',
        'csv',
        'a.csv',
        '--column',
        'distinct_id=user_id',
        '--column',
        'event=action',
        '--group',
        'company=company_id',
        '--no-infer-types',
        '--workers',
        '0',
        '--timezone',
        'Europe/Paris',
        '--staging',
        'x.db',
      ],
      {
        staging: 'x.db',
        workers: 0,
        readerOptions: { inferTypes: false, columns: { distinct_id: 'user_id', event: 'action' }, timezone: undefined, trim: true },
        rules: expect.objectContaining({ timezone: 'Europe/Paris', groups: [{ type: 'company', property: 'company_id' }] }),
        recordedOptions: expect.objectContaining({ timezone: 'Europe/Paris', inferTypes: false }),
      },
    ],
    [
      'a Mixpanel project zone goes to its reader, not to the rows',
      ['--from', 'mixpanel', 'm.json', '--timezone', 'America/New_York'],
      {
        readerOptions: expect.objectContaining({ timezone: 'America/New_York' }),
        rules: expect.objectContaining({ timezone: undefined, formatRenames: MIXPANEL_EVENT_RENAMES }),
        recordedOptions: expect.objectContaining({ timezone: 'America/New_York' }),
      },
    ],
    ['Mixpanel without a zone is recorded as UTC', ['--from', 'mixpanel', 'm.json'], { recordedOptions: expect.objectContaining({ timezone: 'UTC' }) }],
    [
      'a zone is applied under the name typed (messages say it) and recorded by its canonical name',
      ['--from', 'jsonl', 'e.jsonl', '--timezone', 'utc'],
      { rules: expect.objectContaining({ timezone: 'utc' }), recordedOptions: expect.objectContaining({ timezone: 'UTC' }) },
    ],
    [
      'another name of a zone is recorded as the zone the database resolves it to',
      ['--from', 'csv', 'e.csv', '--timezone', 'CET'],
      { rules: expect.objectContaining({ timezone: 'CET' }), recordedOptions: expect.objectContaining({ timezone: CET_CANONICAL }) },
    ],
    [
      'Segment group calls are of type company by default',
      ['--from', 'segment', 'logs/'],
      { readerOptions: expect.objectContaining({ groupType: 'company' }), recordedOptions: expect.objectContaining({ segmentGroupType: 'company', timezone: null }) },
    ],
    [
      '--segment-group-type names another',
      ['--from', 'segment', 'logs/', '--segment-group-type', ' account ', '--timezone', 'Europe/Paris'],
      { readerOptions: expect.objectContaining({ groupType: 'account' }), rules: expect.objectContaining({ timezone: 'Europe/Paris' }) },
    ],
    ['GA4 renames its page and screen views', ['--from', 'ga4', 'events.json'], { rules: expect.objectContaining({ formatRenames: { page_view: '$pageview', screen_view: '$screen' } }) }],
    [
      'Amplitude: identity links on and event_time fallbacks by default',
      ['--from', 'amplitude', 'a.zip'],
      { readerOptions: expect.objectContaining({ strictTime: false }), recordedOptions: expect.objectContaining({ identityLinks: true, strictTime: false, sessionize: null }), passes: {} },
    ],
    [
      'Amplitude: --no-identity-links, --max-users-per-device, --strict-time',
      ['--from', 'amplitude', 'a.zip', '--no-identity-links', '--max-users-per-device', '20', '--strict-time'],
      { readerOptions: expect.objectContaining({ strictTime: true }), recordedOptions: expect.objectContaining({ identityLinks: false, strictTime: true }), passes: { maxUsersPerDevice: 20 } },
    ],
    ['Mixpanel records identity links, not --strict-time', ['--from', 'mixpanel', 'm.json'], { recordedOptions: expect.not.objectContaining({ strictTime: expect.anything() }) }],
    [
      '--sessionize computes sessions after staging',
      ['--from', 'csv', 'a.csv', '--sessionize', '30'],
      { rules: expect.objectContaining({ sessionizeMinutes: 30 }), recordedOptions: expect.objectContaining({ sessionize: 30 }), passes: { sessionizeMinutes: 30 } },
    ],
    [
      'CSV reading: encoding by its WHATWG name, a named delimiter, no trimming',
      ['--from', 'csv', 'a.csv', '--encoding', 'latin1', '--delimiter', 'tab', '--no-trim'],
      { readerOptions: { inferTypes: true, columns: {}, timezone: undefined, encoding: 'windows-1252', delimiter: '\t', trim: false } },
    ],
    ['a delimiter written \\t', ['--from', 'csv', 'a.csv', '--delimiter', '\\t'], { readerOptions: expect.objectContaining({ delimiter: '\t' }) }],
    [
      "options left at their defaults are named, so a file read before keeps its earlier read's values for them",
      ['--from', 'csv', 'a.csv'],
      { defaulted: ['encoding', 'delimiter', 'trim', 'minTime', 'segmentGroupType'], readerOptions: expect.objectContaining({ trim: true }) },
    ],
    [
      'options given, even at their default values, are not defaulted',
      ['--from', 'csv', 'a.csv', '--trim', '--encoding', 'utf-8', '--allow-before', '2000-01-01'],
      { defaulted: ['delimiter', 'segmentGroupType'], readerOptions: expect.objectContaining({ trim: true, encoding: 'utf-8' }) },
    ],
    ['a delimiter as a character', ['--from', 'csv', 'a.csv', '--delimiter', ';'], { readerOptions: expect.objectContaining({ delimiter: ';' }) }],
    [
      'JSON columns are dotted paths, recorded',
      ['--from', 'mixpanel', 'm.json', '--column', 'distinct_id=properties.user.id', '--column', 'timestamp=ts', '--encoding', 'UTF-16LE'],
      {
        readerOptions: expect.objectContaining({ columns: { distinct_id: 'properties.user.id', timestamp: 'ts' }, encoding: 'utf-16le' }),
        recordedOptions: expect.objectContaining({ columns: { distinct_id: 'properties.user.id', timestamp: 'ts' } }),
      },
    ],
    ['plain JSON lines may name their properties', ['--from', 'jsonl', 'e.jsonl', '--column', 'properties=data'], { readerOptions: expect.objectContaining({ columns: { properties: 'data' } }) }],
  ])('%s', async (_name, args, expected) => {
    expect(await exportSourceInput(args)).toMatchObject(expected);
  });

  it.each([
    [['--from', 'amplitude', 'a.zip', '--timezone', 'UTC'], '--timezone does not apply to --from amplitude'],
    [['--from', 'csv', 'a.csv', '--column', 'user=id'], '--column user=id: expected <role>=<header>'],
    [['--from', 'csv', 'a.csv', '--column', 'event='], '--column event=: expected <role>=<header>'],
    [['--from', 'amplitude', 'a.zip', '--column', 'properties=x'], '--column properties=x: expected <role>=<path> with role one of event, distinct_id, timestamp, uuid'],
    [['--from', 'csv', 'a.csv', '--encoding', 'klingon'], '--encoding klingon: not an encoding label'],
    [['--from', 'csv', 'a.csv', '--delimiter', ';;'], '--delimiter ";;": expected one character'],
    [['--from', 'csv', 'a.csv', '--delimiter', '"'], 'expected one character'],
    [['--from', 'jsonl', 'a.jsonl', '--delimiter', ';'], '--delimiter applies to CSV files only'],
    [['--from', 'posthog', 'a.jsonl', '--no-trim'], '--no-trim applies to CSV files only'],
    [['--from', 'posthog', 'a.jsonl', '--trim'], '--trim applies to CSV files only'],
    [['--from', 'csv', 'a.csv', '--group', 'company'], '--group company: expected <group type>=<column>'],
    [['--from', 'csv', 'a.csv', '--timezone', 'Mars/Olympus'], '--timezone: "Mars/Olympus" is not an IANA time zone name'],
    [['--from', 'csv', 'a.csv', '--map', '/nonexistent/map.json'], '--map /nonexistent/map.json: no such file'],
    [['--from', 'ga4', 'e.json', '--timezone', 'UTC'], '--timezone does not apply to --from ga4'],
    [['--from', 'csv', 'a.csv', '--segment-group-type', 'company'], '--segment-group-type applies to --from segment only'],
    [['--from', 'segment', 'logs/', '--segment-group-type', '  '], '--segment-group-type: must be 1 to 400 characters'],
    [['--from', 'csv'], 'no source files given: name files, directories, globs or s3:// prefixes'],
    [['--from', 'mixpanel', 'e.jsonl', '--start', '2025-01-01'], '--start applies to the source APIs only (--from mixpanel-api, amplitude-api, posthog-api), not --from mixpanel'],
    [['--from', 'csv', 'a.csv', '--retry-budget-ms', '10'], '--retry-budget-ms applies to the source APIs only'],
    [['--from', 'csv', 'a.csv', '--min-time', 'yesterday'], '--min-time yesterday: expected a date (2000-01-01) or a time with a zone'],
    [['--from', 'csv', 'a.csv', '--min-time', '2001-01-01 00:00'], '--min-time 2001-01-01 00:00: expected a date'],
    [['--from', 'csv', 'a.csv', '--min-time', '2030-01-01'], '--min-time 2030-01-01: is in the future'],
    [['--from', 'csv', 'a.csv', '--min-time', '1999-01-01', '--allow-before', '1998-01-01'], '--min-time and --allow-before are one option'],
    [['--from', 'csv', 'a.csv', '--no-identity-links'], '--no-identity-links applies to --from amplitude and --from mixpanel only'],
    [['--from', 'segment', 'logs/', '--max-users-per-device', '3'], '--max-users-per-device applies to --from amplitude and --from mixpanel only'],
    [['--from', 'mixpanel', 'm.json', '--strict-time'], '--strict-time applies to --from amplitude only'],
  ])('%j is a usage error', async (args, message) => {
    const error = await exportSourceInput(args).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain(message);
  });

  it.each([
    [['export-source', 'a.csv'], "required option '--from <format>' not specified"],
    [['export-source', '--from', 'xml', 'a.csv'], "argument 'xml' is invalid"],
    [['export-source', '--from', 'csv', 'a.csv', '--workers', '-1'], '--workers must be an integer >= 0'],
    [['export-source', '--from', 'csv', 'a.csv', '--sessionize', '0'], '--sessionize must be an integer >= 1'],
    [['export-source', '--from', 'amplitude', 'a.zip', '--max-users-per-device', 'many'], '--max-users-per-device must be an integer >= 1'],
  ])('%j is refused by the parser', async (args, message) => {
    const error = await parseArgv(args).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CommanderError);
    expect((error as Error).message).toContain(message);
  });
});

describe('export-source from a source API', () => {
  async function apiInput(args: string[]) {
    const {
      args: [files],
      options,
    } = await parseArgv(['export-source', ...args]);
    return toStageApiInput(files as string[], options as unknown as ExportSourceOptions, NOW);
  }

  it('makes the API staging input with the defaults, the rules those of the format the API answers in', async () => {
    expect(await apiInput(['--from', 'mixpanel-api', '--start', '2025-01-01', '--end', '2025-01-31'])).toEqual({
      api: 'mixpanel-api',
      staging: './migration.db',
      config: undefined,
      start: '2025-01-01',
      end: '2025-01-31',
      nowMs: NOW,
      readerOptions: { inferTypes: true, columns: {}, timezone: undefined, groupType: undefined },
      rules: { mapping: undefined, formatRenames: MIXPANEL_EVENT_RENAMES, timezone: undefined, nowMs: NOW, minTimeMs: Date.UTC(2000, 0, 1), groups: [] },
      ingestion: { geoipFromIp: true, importSource: 'mixpanel' },
      recordedOptions: {
        map: null,
        mapping: null,
        timezone: 'UTC',
        inferTypes: true,
        columns: {},
        groups: [],
        minTime: '2000-01-01T00:00:00.000Z',
        geoip: true,
        identityLinks: true,
        sessionize: null,
      },
      passes: {},
      workers: undefined,
      maxRequestsPerHour: undefined,
      concurrency: undefined,
      hoursPerRequest: undefined,
      idleTimeoutMs: 300_000,
      retryPolicy: { initialDelayMs: 1000, maxDelayMs: 60_000, maxTotalWaitMs: 7_200_000 },
    });
  });

  it('takes the API flags', async () => {
    const input = await apiInput([
      '--from',
      'amplitude-api',
      '--start',
      '2025-01-01T00',
      '--end',
      '2025-01-31T23',
      '--config',
      'c.json',
      '--max-requests-per-hour',
      '0',
      '--api-concurrency',
      '1',
      '--hours-per-request',
      '6',
      '--idle-timeout-ms',
      '5000',
      '--retry-initial-ms',
      '1',
      '--retry-max-delay-ms',
      '5',
      '--retry-budget-ms',
      '100',
    ]);
    expect(input).toMatchObject({
      api: 'amplitude-api',
      config: 'c.json',
      maxRequestsPerHour: 0,
      concurrency: 1,
      hoursPerRequest: 6,
      idleTimeoutMs: 5000,
      retryPolicy: { initialDelayMs: 1, maxDelayMs: 5, maxTotalWaitMs: 100 },
      readerOptions: { timezone: undefined },
      recordedOptions: { timezone: null },
    });
  });

  it('reads another PostHog project named by --project, with GeoIP off for every row', async () => {
    const input = await apiInput(['--from', 'posthog-api', '--project', 'old', '--start', '2025-01-01', '--end', '2025-01-31']);
    expect(input).toMatchObject({ api: 'posthog-api', project: 'old', ingestion: { geoipFromIp: false, importSource: 'posthog' }, recordedOptions: { geoip: false } });
  });

  it.each<[string[], string]>([
    [['--from', 'mixpanel-api', '--project', 'old', '--start', '2025-01-01', '--end', '2025-01-02'], '--project applies to --from posthog-api only'],
    [
      ['--from', 'mixpanel-api', 'export.jsonl', '--start', '2025-01-01', '--end', '2025-01-02'],
      "--from mixpanel-api fetches from Mixpanel's export API: give --start and --end, not files (export.jsonl)",
    ],
    [['--from', 'amplitude-api', '--start', '2025-01-01', '--end', '2025-01-02', '--timezone', 'Europe/Paris'], '--timezone does not apply to --from amplitude'],
  ])('%j is a usage error', async (args, message) => {
    const error = await apiInput(args).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain(message);
  });

  it.each([
    [['export-source', '--from', 'mixpanel-api', '--api-concurrency', '0'], '--api-concurrency must be an integer >= 1'],
    [['export-source', '--from', 'amplitude-api', '--hours-per-request', 'x'], '--hours-per-request must be an integer >= 1'],
  ])('%j is refused by the parser', async (args, message) => {
    const error = await parseArgv(args).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CommanderError);
    expect((error as Error).message).toContain(message);
  });
});

describe('identify-users and identify-groups', () => {
  it('stages $identify from a users file, with $set_once columns', async () => {
    const { args, options } = await parseArgv(['identify-users', '--from', 'csv', 'users.csv', '--set-once', ' first_seen, plan ,,']);
    expect(toIdentifyUsersInput(args[0] as string[], options as unknown as IdentifyOptions, NOW)).toEqual({
      files: ['users.csv'],
      staging: './migration.db',
      command: 'identify-users',
      format: 'users-csv',
      workers: undefined,
      readerOptions: { inferTypes: true, setOnce: ['first_seen', 'plan'], trim: true },
      expandInputs: false,
      replaceChanged: false,
      reread: false,
      defaulted: ['encoding', 'delimiter', 'trim', 'minTime'],
      rules: { timezone: undefined, nowMs: NOW, minTimeMs: Date.UTC(2000, 0, 1), kind: 1 },
      ingestion: { geoipFromIp: true, importSource: 'identify-users' },
      defaultTimestampMs: defaultUpdateTimestampMs(NOW),
      recordedOptions: { timezone: null, inferTypes: true, setOnce: ['first_seen', 'plan'], minTime: '2000-01-01T00:00:00.000Z', geoip: true },
    });
  });

  it.each<[string[], Record<string, unknown>]>([
    [
      ['--group-type', 'company'],
      {
        format: 'groups-jsonl',
        command: 'identify-groups',
        readerOptions: { inferTypes: true, groupType: 'company', keyColumn: 'group_key' },
        ingestion: { geoipFromIp: true, importSource: 'identify-groups' },
      },
    ],
    [['--group-type', 'company', '--no-geoip'], { ingestion: { geoipFromIp: false, importSource: 'identify-groups' }, recordedOptions: { geoip: false } }],
    [
      ['--group-type', ' team ', '--key-column', 'id', '--timezone', 'Europe/Paris'],
      { readerOptions: { inferTypes: true, groupType: 'team', keyColumn: 'id' }, rules: { timezone: 'Europe/Paris', nowMs: NOW, kind: 2 } },
    ],
    [
      ['--group-type', 'company', '--allow-before', '1990-01-01', '--replace-changed'],
      { replaceChanged: true, rules: { minTimeMs: Date.UTC(1990, 0, 1) }, recordedOptions: { minTime: '1990-01-01T00:00:00.000Z' } },
    ],
  ])('stages $groupidentify: %j', async (extra, expected) => {
    const { args, options } = await parseArgv(['identify-groups', '--from', 'jsonl', 'companies.jsonl', ...extra]);
    expect(toIdentifyGroupsInput(args[0] as string[], options as unknown as IdentifyOptions, NOW)).toMatchObject(expected);
  });

  it.each<[string[], Record<string, unknown>]>([
    [
      ['identify-users', '--from', 'csv', 'u.csv', '--column', 'distinct_id=user_id', '--delimiter', ';', '--encoding', 'latin1'],
      {
        readerOptions: { inferTypes: true, setOnce: [], columns: { distinct_id: 'user_id' }, delimiter: ';', encoding: 'windows-1252', trim: true },
        recordedOptions: expect.objectContaining({ columns: { distinct_id: 'user_id' } }),
      },
    ],
    [
      ['identify-groups', '--from', 'jsonl', 'g.jsonl', '--group-type', 'company', '--column', 'timestamp=meta.updated'],
      { readerOptions: expect.objectContaining({ columns: { timestamp: 'meta.updated' } }) },
    ],
  ])('reading flags: %j', async (argv, expected) => {
    const { args, options } = await parseArgv(argv);
    const input = argv[0] === 'identify-users' ? toIdentifyUsersInput : toIdentifyGroupsInput;
    expect(input(args[0] as string[], options as unknown as IdentifyOptions, NOW)).toMatchObject(expected);
  });

  it.each<[string[], string]>([
    [['identify-groups', '--from', 'csv', 'g.csv', '--group-type', 'company', '--column', 'group_key=id'], '--column group_key=id: expected <role>=<header> with role one of timestamp, uuid'],
    [['identify-users', '--from', 'jsonl', 'u.jsonl', '--delimiter', ';'], '--delimiter applies to CSV files only'],
  ])('%j is a usage error', async (argv, message) => {
    const { args, options } = await parseArgv(argv);
    const input = argv[0] === 'identify-users' ? toIdentifyUsersInput : toIdentifyGroupsInput;
    expect(() => input(args[0] as string[], options as unknown as IdentifyOptions, NOW)).toThrow(message);
  });

  it('refuses an empty group type', async () => {
    const { args, options } = await parseArgv(['identify-groups', '--from', 'csv', 'c.csv', '--group-type', '  ']);
    expect(() => toIdentifyGroupsInput(args[0] as string[], options as unknown as IdentifyOptions, NOW)).toThrow('--group-type: must be 1 to');
  });
});

describe('import and resume', () => {
  it.each<[string[], Record<string, unknown>, boolean]>([
    [
      ['--project', 'test'],
      { staging: './migration.db', config: undefined, project: 'test', sample: undefined, skipTestFirst: false, skipPreflight: false, retryDeadLetters: false, given: {} },
      false,
    ],
    [
      [
        '--project',
        'prod',
        '--sample',
        '10',
        '--skip-test-first',
        '--skip-preflight',
        '--config',
        'c.json',
        '--staging',
        's.db',
        '--chunk-events',
        '5',
        '--no-gzip',
        '--quiet',
        '--max-dead-letters',
        '0',
      ],
      { staging: 's.db', config: 'c.json', project: 'prod', sample: 10, skipTestFirst: true, skipPreflight: true, retryDeadLetters: false, given: { chunkEvents: 5, gzip: false, maxDeadLetters: 0 } },
      false,
    ],
    [
      ['--project', 'test', '--dry-run', '--json'],
      { staging: './migration.db', config: undefined, project: 'test', sample: undefined, skipTestFirst: false, skipPreflight: false, retryDeadLetters: false, given: {} },
      true,
    ],
    [
      ['--project', 'test', '--retry-dead-letters'],
      { staging: './migration.db', config: undefined, project: 'test', sample: undefined, skipTestFirst: false, skipPreflight: false, retryDeadLetters: true, given: {} },
      false,
    ],
    [
      ['--project', 'test', '--people-last', '--include-recent'],
      {
        staging: './migration.db',
        config: undefined,
        project: 'test',
        sample: undefined,
        skipTestFirst: false,
        skipPreflight: false,
        retryDeadLetters: false,
        given: { peopleLast: true, includeRecent: true },
      },
      false,
    ],
  ])('import %j', async (args, expected, dryRun) => {
    const { options, command } = await parseArgv(['import', ...args]);
    expect(toImportInput(options as unknown as ImportOptions, givenSettings(command))).toEqual(expected);
    expect(options.dryRun === true).toBe(dryRun);
  });

  it.each([
    [['import'], "required option '--project <name>' not specified"],
    [['import', '--project', 'test', '--sample', '0'], '--sample must be an integer >= 1'],
    [['import', '--project', 'test', '--chunk-bytes', '10'], '--chunk-bytes must be an integer >= 1024'],
  ])('%j is refused by the parser', async (args, message) => {
    await expect(parseArgv(args)).rejects.toThrow(message);
  });

  it.each<[string[], Record<string, unknown>]>([
    [[], { staging: './migration.db', config: undefined, project: undefined, given: {} }],
    [['--project', 'prod', '--concurrency', '2', '--retry-budget-ms', '0'], { staging: './migration.db', config: undefined, project: 'prod', given: { concurrency: 2, retryBudgetMs: 0 } }],
    [['--people-last'], { staging: './migration.db', config: undefined, project: undefined, given: { peopleLast: true } }],
  ])('resume %j', async (args, expected) => {
    const { options, command } = await parseArgv(['resume', ...args]);
    expect(toResumeInput(options as unknown as ResumeOptions, givenSettings(command))).toEqual(expected);
  });
});

describe('doctor', () => {
  it.each<[string[], Record<string, unknown>]>([
    [['--project', 'test'], { project: 'test', staging: './migration.db', source: [] }],
    [['--project', 'prod', '--staging', 's.db', '--config', 'c.json', '--json'], { project: 'prod', staging: 's.db', config: 'c.json', json: true, source: [] }],
    [
      ['--project', 'test', '--source', 's3://b/p/', '--source', 'gs://g/q/', '--from', 'amplitude', '--endpoint-url', 'http://127.0.0.1:9000', '--profile', 'prod'],
      { project: 'test', staging: './migration.db', source: ['s3://b/p/', 'gs://g/q/'], from: 'amplitude', endpointUrl: 'http://127.0.0.1:9000', profile: 'prod' },
    ],
  ])('doctor %j', async (args, expected) => {
    const { options } = await parseArgv(['doctor', ...args]);
    expect(options).toEqual(expected);
  });

  it('needs --project', async () => {
    await expect(parseArgv(['doctor'])).rejects.toThrow("required option '--project <name>' not specified");
  });
});

describe('sandbox', () => {
  it('listens on 8010 with ./sandbox.db and no faults by default', async () => {
    const { options } = await parseArgv(['sandbox']);
    expect(toSandboxOptions(options as unknown as SandboxCommandOptions)).toMatchObject({
      port: 8010,
      dbPath: resolve('./sandbox.db'),
      capture: { countOnly: false, random: undefined, maxBodyBytes: undefined, faults: { error500: undefined, error503: undefined, drop: undefined } },
    });
  });

  it('takes faults, a seed and a throwaway store', async () => {
    const { options } = await parseArgv(['sandbox', '--port', '0', '--db', ':memory:', '--fail-503', '0.2', '--fail-429-retry-after', '0.1', '--retry-after', '3', '--seed', '7', '--count-only']);
    const sandbox = toSandboxOptions(options as unknown as SandboxCommandOptions);
    expect(sandbox).toMatchObject({ port: 0, dbPath: ':memory:', capture: { countOnly: true, faults: { error503: 0.2, error429RetryAfter: 0.1, retryAfterSeconds: 3 } } });
    expect(typeof sandbox.capture?.random).toBe('function');
  });

  it("takes the query API's row cap, execution limit and estimate limit", async () => {
    const { options } = await parseArgv(['sandbox', '--query-max-rows', '10000', '--query-max-scanned-rows', '500000', '--query-max-estimated-rows', '400000']);
    expect(toSandboxOptions(options as unknown as SandboxCommandOptions).api?.query).toEqual({ maxRows: 10_000, maxScannedRows: 500_000, maxEstimatedRows: 400_000 });
  });

  it.each([
    [['sandbox', '--fail-500', '2'], '--fail-500 must be a share between 0 and 1'],
    [['sandbox', '--port', '-1'], '--port must be an integer >= 0'],
  ])('%j is refused by the parser', async (args, message) => {
    await expect(parseArgv(args)).rejects.toThrow(message);
  });
});

describe('management commands', () => {
  it('reads the member uuid in lower case and the level', async () => {
    const { args, options } = await parseArgv(['members', 'update', '01930000-0000-7000-8000-0000000000B4', '--level', '8', '--project', 'test']);
    expect(args).toEqual(['01930000-0000-7000-8000-0000000000b4']);
    expect(options).toMatchObject({ level: 8, project: 'test' });
  });

  it('members add defaults to level 1; list takes no argument', async () => {
    expect((await parseArgv(['members', 'add', '01930000-0000-7000-8000-0000000000b4', '--project', 'test'])).options).toMatchObject({ level: 1 });
    expect((await parseArgv(['members', 'add', '01930000-0000-7000-8000-0000000000b4', '--level', '8', '--project', 'test'])).options).toMatchObject({ level: 8 });
    expect((await parseArgv(['members', 'list', '--project', 'test', '--json'])).options).toMatchObject({ project: 'test', json: true });
  });

  it.each([
    [[], 600_000],
    [['--wait-ms', '1500'], 1500],
  ])('exports create %j bounds the create request at %i ms', async (extra, waitMs) => {
    const { options } = await parseArgv(['exports', 'create', '--insight', '3', '--format', 'text/csv', '--project', 'test', ...extra]);
    expect(options).toMatchObject({ waitMs, waitTimeoutMs: 300_000, pollIntervalMs: 1000 });
  });

  it('makes the export request and the paging', async () => {
    const created = await parseArgv(['exports', 'create', '--insight', '3', '--format', 'text/csv', '--project', 'test', '--wait']);
    expect(exportRequest(created.options as never)).toEqual({ export_format: 'text/csv', insight: 3 });
    const listed = await parseArgv(['exports', 'list', '--limit', '5', '--offset', '10', '--project', 'test']);
    expect(exportsPaging(listed.options)).toEqual({ all: false, limit: 5, offset: 10 });
  });

  it.each([
    [['members', 'get', 'ada@example.com', '--project', 'test'], 'is not a user uuid'],
    [['members', 'update', '01930000-0000-7000-8000-0000000000b4', '--level', '15', '--project', 'test'], 'must be 1 (member) or 8 (administrator)'],
    [['groups', 'list', '--group-type-index', '5', '--project', 'test'], 'must be a group type index from 0 to 4'],
    [['projects', 'list'], "required option '--project <name>' not specified"],
    [['exports', 'get', '0', '--project', 'test'], '<id> must be an integer >= 1'],
    [['exports', 'create', '--insight', '1', '--format', 'text/csv', '--wait-ms', '0', '--project', 'test'], '--wait-ms must be an integer >= 1'],
    [['members', 'add', '01930000-0000-7000-8000-0000000000b4', '--level', '15', '--project', 'test'], 'must be 1 (member) or 8 (administrator)'],
  ])('%j is refused by the parser', async (args, message) => {
    await expect(parseArgv(args)).rejects.toThrow(message);
  });
});

describe('options of every command', () => {
  it.each([
    [['import', '--projet', 'test'], '--projet', '--project'],
    [['group-types', 'list', '--projet', 'test'], '--projet', '--project'],
    [['identify-groups', 'c.csv', '--from', 'csv', '--group-typ', 'company'], '--group-typ', '--group-type'],
    [['exports', 'create', '--insight', '1', '--projet', 'test'], '--projet', '--project'],
  ])('%j: a mistyped option is reported as unknown, with the suggestion, before any required option', async (args, typed, meant) => {
    const error = (await parseArgv(args).catch((e: unknown) => e)) as CommanderError;
    expect(error).toBeInstanceOf(CommanderError);
    expect(error.code).toBe('commander.unknownOption');
    expect(error.message).toContain(`unknown option '${typed}'\n(Did you mean ${meant}?)`);
  });
});

describe('export-source filters and --transform', () => {
  const dir = mkdtempSync(join(tmpdir(), 'argv-transform-'));
  const module = (name: string, text: string): string => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  const identity = module('identity.mjs', 'export default function (e) { return e; }\n');

  it.each<[string, string[], Record<string, unknown>, Record<string, unknown>]>([
    ['--only-events, comma-separated and repeated, each once and sorted', ['--only-events', 'b, a', '--only-events', 'a,,c'], { onlyEvents: ['a', 'b', 'c'] }, { onlyEvents: ['a', 'b', 'c'] }],
    ['--skip-events', ['--skip-events', 'test_event'], { skipEvents: ['test_event'] }, { skipEvents: ['test_event'] }],
    [
      '--since a day, --until a time with a zone',
      ['--since', '2024-01-01', '--until', '2024-06-30T12:00:00+02:00'],
      { sinceMs: Date.UTC(2024, 0, 1), untilMs: Date.UTC(2024, 5, 30, 10) },
      { since: '2024-01-01T00:00:00.000Z', until: '2024-06-30T10:00:00.000Z' },
    ],
  ])('%s', async (_name, args, filters, recorded) => {
    const input = await exportSourceInput(['--from', 'csv', 'a.csv', ...args]);
    expect(input.rules.filters).toEqual(filters);
    expect(input.rules.transform).toBeUndefined();
    expect(input.recordedOptions).toMatchObject(recorded);
  });

  it('records nothing new without them', async () => {
    const input = await exportSourceInput(['--from', 'csv', 'a.csv']);
    expect(input.rules).not.toHaveProperty('filters');
    expect(Object.keys(input.recordedOptions)).not.toContain('transform');
  });

  it('--transform: the module by its file URL carrying its content, recorded by content whatever its path', async () => {
    const copy = module('copy.mjs', 'export default function (e) { return e; }\n');
    const a = await exportSourceInput(['--from', 'csv', 'a.csv', '--transform', identity]);
    const b = await exportSourceInput(['--from', 'jsonl', 'a.jsonl', '--transform', copy]);
    expect(a.rules.transform).toEqual({ url: expect.stringMatching(/^file:\/\/.*identity\.mjs\?sha256=[0-9a-f]{64}$/), name: 'identity.mjs' });
    expect(a.recordedOptions).toMatchObject({ transform: expect.stringMatching(/^sha256:[0-9a-f]{64}$/), transformFile: identity });
    expect(a.recordedOptions.transform).toBe(b.recordedOptions.transform);
  });

  it('applies to the source APIs too', async () => {
    const {
      args: [files],
      options,
    } = await parseArgv(['export-source', '--from', 'mixpanel-api', '--start', '2025-01-01', '--end', '2025-01-02', '--transform', identity, '--skip-events', 'x']);
    const input = await toStageApiInput(files as string[], options as unknown as ExportSourceOptions, NOW);
    expect(input.rules).toMatchObject({ transform: { name: 'identity.mjs' }, filters: { skipEvents: ['x'] } });
  });

  it.each<[string, string[], string]>([
    ['both lists', ['--only-events', 'a', '--skip-events', 'b'], '--only-events and --skip-events: give one of them'],
    ['an empty list', ['--only-events', ' , '], '--only-events: give one or more event names'],
    ['a time without a zone', ['--since', '2024-01-01 10:00'], '--since 2024-01-01 10:00: expected a date (2000-01-01) or a time with a zone'],
    ['until not after since', ['--since', '2024-02-01', '--until', '2024-02-01'], '--until 2024-02-01 is not after --since 2024-02-01'],
    ['no such module', ['--transform', '/nonexistent/t.mjs'], '--transform /nonexistent/t.mjs: no such file'],
    ['a directory', ['--transform', tmpdir()], 'is a directory, not a module'],
    ['an async default export', ['--transform', module('async.mjs', 'export default async (e) => e;\n')], '--transform async.mjs: its default export is an async function'],
    ['no default export', ['--transform', module('named.mjs', 'export const f = (e) => e;\n')], '--transform named.mjs: its default export is missing, not a function'],
    ['a syntax error', ['--transform', module('broken.mjs', 'export default function (e) {\n')], '--transform broken.mjs: cannot be loaded: '],
  ])('%s is a usage error', async (_name, args, message) => {
    const error = await exportSourceInput(['--from', 'csv', 'a.csv', ...args]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain(message);
  });

  it.each([[['identify-users']], [['identify-groups', '--group-type', 'company']]])('%j does not take them: they apply to events', async (command) => {
    const error = (await parseArgv([...command, '--from', 'csv', 'u.csv', '--since', '2024-01-01']).catch((e: unknown) => e)) as CommanderError;
    expect(error).toBeInstanceOf(CommanderError);
    expect(error.message).toContain("unknown option '--since'");
  });
});
