/**
 * Waiting for an export to render, within a bound: poll the export until it has content or an
 * exception, or poll its content while the server answers "not ready". The clock is injected,
 * so tests wait without sleeping.
 */
import { RemoteError } from '../errors.js';
import type { Clock } from '../util/clock.js';
import type { ExportContent, ManagementApi } from './management-api.js';
import type { Export } from './management-schemas.js';
import { projectCommand, type CommandTarget } from './project-command.js';

export interface WaitOptions {
  /** Pause between polls when the server does not say how long, in ms. */
  pollIntervalMs: number;
  /** Give up after this long, in ms. */
  timeoutMs: number;
  clock: Clock;
  /** The project and config, named in the command a message suggests. */
  target?: CommandTarget;
}

export const DEFAULT_POLL_INTERVAL_MS = 1000;
export const DEFAULT_WAIT_TIMEOUT_MS = 300_000;

function notReadyError(id: number, options: WaitOptions): RemoteError {
  return new RemoteError(`export ${id} is still not ready after ${Math.round(options.timeoutMs / 1000)} s`, [`Try again later: ${projectCommand(`exports download ${id}`, options.target)}`]);
}

/** Polls the export until it has content; an export that failed to render is an error. */
export async function waitForExport(api: Pick<ManagementApi, 'getExport'>, id: number, options: WaitOptions): Promise<Export> {
  const start = options.clock.now();
  for (;;) {
    const current = await api.getExport(id);
    if (current.exception) throw new RemoteError(`export ${id} failed to render: ${current.exception}`);
    if (current.has_content) return current;
    if (options.clock.now() - start >= options.timeoutMs) throw notReadyError(id, options);
    await options.clock.sleep(options.pollIntervalMs);
  }
}

/** Fetches the content, waiting while the server answers that it is not ready yet. */
export async function downloadWhenReady(api: Pick<ManagementApi, 'exportContent'>, id: number, options: WaitOptions): Promise<Extract<ExportContent, { ready: true }>> {
  const start = options.clock.now();
  for (;;) {
    const content = await api.exportContent(id);
    if (content.ready) return content;
    const elapsed = options.clock.now() - start;
    if (elapsed >= options.timeoutMs) throw notReadyError(id, options);
    await options.clock.sleep(Math.min(content.retryAfterMs ?? options.pollIntervalMs, options.timeoutMs - elapsed));
  }
}
