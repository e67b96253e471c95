/**
 * The built CLI against a sandbox that takes at most 5,000 events a second (429 past it): the
 * import paces itself under the server's limit, delivers everything once, and says what its
 * pace came to, in its summary and in `status`.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { storedEvents, useSandbox, writeSandboxConfig } from '../helpers/sandbox.js';
import { SAMPLE_EVENTS, deliveredCount, stageSample, stagedUuids } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

describe('import against a rate-limited server', () => {
  const tempDir = useTempDir();
  const sandboxAt = useSandbox();

  it('delivers everything once and reports its pace and the requests refused', async () => {
    const sandbox = await sandboxAt({ capture: { faults: { rateLimitPerSec: 5000 } } });
    const dir = tempDir();
    const config = writeSandboxConfig(dir, sandbox);
    const staging = await stageSample(dir);
    const result = await runCli(['import', '--project', 'test', '--staging', staging, '--config', config, '--chunk-events', '250', '--retry-initial-ms', '50'], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/Pace: average pace [\d,]+ events\/s; (no request refused for load|[\d,]+ of [\d,]+ requests refused for load \(\d+\.\d%\)); /);
    const stored = storedEvents(sandbox, 1);
    expect(stored).toHaveLength(SAMPLE_EVENTS);
    expect(new Set(stored.map((e) => e.uuid))).toEqual(new Set(stagedUuids(staging)));
    expect(deliveredCount(staging, 'test')).toBe(SAMPLE_EVENTS);
    const status = await runCli(['status', '--staging', staging], { cwd: dir });
    expect(status.stdout).toMatch(/test: last import's average pace [\d,]+ events\/s; /);
  });
});
