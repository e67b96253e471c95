/**
 * The use cases in-process, tested on what they return: staging the sample, a dry run, an
 * import, an interrupted import and its resume, a refused key, and the reports. Import runs the
 * built modules (dist/, so the chunk reader's worker file exists) against a real sandbox.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentReporter } from '../../src/reporter.js';
import { readRejects, readStagingReport } from '../../src/staging/staging-report.js';
import { stageSources, type StageSourcesInput } from '../../src/stage-sources/stage-sources.js';
import { recordingReporter } from '../helpers/recording-reporter.js';
import { FIXTURES, REPO_ROOT } from '../helpers/run-cli.js';
import { useSandbox, writeSandboxConfig } from '../helpers/sandbox.js';
import { SAMPLE_CSV, SAMPLE_EVENTS } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

const built = (path: string) => import(join(REPO_ROOT, 'dist', path));
const { importProject, dryRunImport } = (await built('import/import-project.js')) as typeof import('../../src/import/import-project.js');
const { resumeImport } = (await built('import/resume-import.js')) as typeof import('../../src/import/resume-import.js');
const { UnfinishedRunError } = (await built('import/run-summary.js')) as typeof import('../../src/import/run-summary.js');
const builtErrors = (await built('errors.js')) as typeof import('../../src/errors.js');

const running = (): AbortSignal => new AbortController().signal;
const FAST = { retryInitialMs: 1, retryMaxDelayMs: 5 };

function csvInput(staging: string, file: string): StageSourcesInput {
  return {
    files: [file],
    staging,
    command: 'export-source',
    format: 'csv',
    readerOptions: { inferTypes: true, columns: {} },
    rules: { nowMs: Date.now() },
    recordedOptions: { map: null, timezone: null, inferTypes: true, columns: {}, groups: [] },
    expandInputs: true,
  };
}

describe('stageSources', () => {
  const tempDir = useTempDir();

  it('returns what happened to each file, and recognises them on a second run', async () => {
    const staging = join(tempDir(), 'm.db');
    const reporter = recordingReporter();
    const first = await stageSources(csvInput(staging, SAMPLE_CSV), reporter, running());
    expect(first.files).toHaveLength(1);
    expect(first.files[0]).toMatchObject({ path: SAMPLE_CSV, rowsRead: SAMPLE_EVENTS, staged: SAMPLE_EVENTS, alreadyStaged: 0, rejected: 0 });
    expect(first.totals).toMatchObject({ rowsRead: SAMPLE_EVENTS, staged: SAMPLE_EVENTS });
    expect(first.staging).toBe(staging);
    expect(reporter.progressLines.at(-1)).toMatch(/sample-events\.csv: 3,000 rows, 3,000 new/);
    const unchanged = await stageSources(csvInput(staging, SAMPLE_CSV), silentReporter, running());
    expect(unchanged).toMatchObject({ files: [], unchanged: [SAMPLE_CSV] });
    const again = await stageSources({ ...csvInput(staging, SAMPLE_CSV), reread: true }, silentReporter, running());
    expect(again.totals).toMatchObject({ rowsRead: SAMPLE_EVENTS, staged: 0, alreadyStaged: SAMPLE_EVENTS });
    expect(readStagingReport(staging).events.count).toBe(SAMPLE_EVENTS);
  });

  it('returns the rejects of a malformed file, which readRejects lists by line', async () => {
    const staging = join(tempDir(), 'm.db');
    const result = await stageSources(csvInput(staging, join(FIXTURES, 'malformed-events.csv')), silentReporter, running());
    const rejects = readRejects(staging);
    expect(result.totals.rejected).toBeGreaterThan(0);
    expect(rejects).toHaveLength(result.totals.rejected);
    expect(rejects.map((r) => r.line)).toEqual([...rejects.map((r) => r.line)].sort((a, b) => a - b));
    expect(result.files[0]!.firstRejects[0]).toMatchObject({ line: rejects[0]!.line, reason: rejects[0]!.reason });
  });

  it('stops on an aborted signal with an InterruptedError, the file left partial', async () => {
    const staging = join(tempDir(), 'm.db');
    const interrupt = new AbortController();
    interrupt.abort('SIGINT');
    await expect(stageSources(csvInput(staging, SAMPLE_CSV), silentReporter, interrupt.signal)).rejects.toMatchObject({ name: 'InterruptedError', exitCode: 130 });
    expect(readStagingReport(staging).events.count).toBe(0);
    expect(readStagingReport(staging).sources).toMatchObject([{ status: 'partial', progressLine: 1 }]);
  });
});

describe('import use cases', () => {
  const tempDir = useTempDir();
  const sandboxAt = useSandbox();

  async function prepared() {
    const sandbox = await sandboxAt();
    const dir = tempDir();
    const config = writeSandboxConfig(dir, sandbox);
    const staging = join(dir, 'm.db');
    await stageSources(csvInput(staging, SAMPLE_CSV), silentReporter, running());
    return { sandbox, config, staging, input: { staging, config, project: 'test', skipTestFirst: false, given: FAST } };
  }

  it('a dry run reports what would be sent and records nothing', async () => {
    const { sandbox, input } = await prepared();
    const report = await dryRunImport({ ...input, given: { chunkEvents: 500 } }, silentReporter);
    // Six weeks of events, and a chunk never spans two UTC days.
    expect(report).toMatchObject({ project: 'test', host: sandbox.url, pending: SAMPLE_EVENTS, events: SAMPLE_EVENTS, chunks: 42, concurrency: 4, maxRatePerSec: 0, gzip: true });
    expect(readStagingReport(input.staging).projects).toEqual([]);
  });

  it('a sample run returns its summary and the next step', async () => {
    const { sandbox, input } = await prepared();
    const reporter = recordingReporter();
    const result = await importProject({ ...input, sample: 250 }, reporter, running());
    expect(result.summary).toMatchObject({ project: 'test', host: sandbox.url, outcome: 'done', delivered: 250, deadLettered: 0, pending: SAMPLE_EVENTS - 250, sample: 250 });
    // The sample left events pending on test: the next step is the rest, not production.
    expect(result.next).toBe(`migrate import --project test --staging ${input.staging} --config ${input.config} (${(SAMPLE_EVENTS - 250).toLocaleString('en-US')} events still pending)`);
    // Without a personal key the preflight warns that verify and the billing check cannot run; nothing else is said.
    expect(reporter.warnings.filter((w) => !w.startsWith('test: preflight warning'))).toEqual([]);
  });

  it('an interrupted run throws its summary with the error; resume finishes it, then has nothing to do', async () => {
    const { input } = await prepared();
    const interrupt = new AbortController();
    interrupt.abort('SIGINT');
    const error = await importProject({ ...input, skipPreflight: true }, silentReporter, interrupt.signal).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnfinishedRunError);
    const unfinished = error as InstanceType<typeof UnfinishedRunError>;
    expect(unfinished.summary).toMatchObject({ outcome: 'interrupted', delivered: 0, pending: SAMPLE_EVENTS });
    expect(unfinished.reason).toBeInstanceOf(builtErrors.InterruptedError);
    expect(unfinished.exitCode).toBe(130);
    expect(unfinished.message).toBe('interrupted by SIGINT: every chunk the server accepted is recorded; 3,000 events still pending');
    expect(unfinished.hints).toEqual([`Resume with: migrate resume --project test --staging ${input.staging} --config ${input.config}`]);

    const reporter = recordingReporter();
    const resumed = await resumeImport({ staging: input.staging, given: {} }, reporter, running());
    expect(resumed).toMatchObject({
      type: 'resumed',
      summary: { outcome: 'done', delivered: SAMPLE_EVENTS, pending: 0 },
      next: `migrate import --project prod --staging ${input.staging} --config ${input.config}`,
    });
    expect(reporter.notices[0]).toMatch(/^Resuming the import into test started /);
    expect(await resumeImport({ staging: input.staging, given: {} }, silentReporter, running())).toEqual({
      type: 'nothing-to-resume',
      reason: 'finished',
      message: 'Nothing to resume: every import finished.',
    });
  });

  it('a refused key stops the run: its summary with the AuthError', async () => {
    const { sandbox, staging } = await prepared();
    const config = writeSandboxConfig(tempDir(), sandbox, { test: { role: 'test', host: sandbox.url, apiKey: 'phc_not_a_key_of_this_sandbox' } });
    // The preflight would catch the key before delivery (see doctor-import.test.ts); this is delivery's own refusal.
    const error = await importProject({ staging, config, project: 'test', skipTestFirst: false, skipPreflight: true, given: FAST }, silentReporter, running()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnfinishedRunError);
    const unfinished = error as InstanceType<typeof UnfinishedRunError>;
    expect(unfinished.summary).toMatchObject({ outcome: 'stopped', delivered: 0 });
    expect(unfinished.reason).toBeInstanceOf(builtErrors.AuthError);
    expect(unfinished.exitCode).toBe(4);
    expect(unfinished.message).toContain('refused the project API key of project "test" (HTTP 401');
  });

  it('refuses production before a test import, before anything is sent', async () => {
    const { input } = await prepared();
    await expect(importProject({ ...input, project: 'prod' }, silentReporter, running())).rejects.toBeInstanceOf(builtErrors.RefusedError);
    expect(readStagingReport(input.staging).projects).toEqual([]);
  });
});
