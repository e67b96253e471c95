/** sandbox's options as the server's options: where it listens, its store, and the capture faults to inject. Pure. */
import { resolve } from 'node:path';
import type { CaptureFaults, SandboxOptions } from '../../../sandbox/index.js';
import { seededRandom } from '../../../util/seeded-random.js';

export interface SandboxCommandOptions {
  port: number;
  db: string;
  countOnly?: boolean;
  fail500?: number;
  fail503?: number;
  fail429?: number;
  fail429RetryAfter?: number;
  retryAfter?: number;
  drop?: number;
  loseAnswers?: number;
  slow?: number;
  slowMs?: number;
  maxBodyBytes?: number;
  maxEventBytes?: number;
  unknownTokens?: 'refuse' | 'accept-and-drop';
  overQuota?: boolean;
  loseAfterAccept?: number;
  rateLimit?: number;
  seed?: number;
  json?: boolean;
  explicitMembers: boolean;
  exportRenderMs?: number;
  exportContent404UntilReady?: boolean;
  queryMaxRows?: number;
  queryMaxScannedRows?: number;
  queryMaxEstimatedRows?: number;
}

export function faultsOf(o: SandboxCommandOptions): CaptureFaults {
  return {
    error500: o.fail500,
    error503: o.fail503,
    error429: o.fail429,
    error429RetryAfter: o.fail429RetryAfter,
    retryAfterSeconds: o.retryAfter,
    drop: o.drop,
    loseAnswer: o.loseAnswers,
    slow: o.slow,
    slowMs: o.slowMs,
    unknownTokens: o.unknownTokens,
    overQuota: o.overQuota,
    loseAfterAccept: o.loseAfterAccept,
    rateLimitPerSec: o.rateLimit,
  };
}

/** The store's path as shown and used: absolute, or ':memory:'. */
export function sandboxDbPath(db: string): string {
  return db === ':memory:' ? ':memory:' : resolve(db);
}

export function toSandboxOptions(o: SandboxCommandOptions): SandboxOptions {
  return {
    port: o.port,
    dbPath: sandboxDbPath(o.db),
    capture: {
      faults: faultsOf(o),
      maxBodyBytes: o.maxBodyBytes,
      maxEventBytes: o.maxEventBytes,
      countOnly: o.countOnly === true,
      random: o.seed === undefined ? undefined : seededRandom(o.seed),
    },
    api: {
      explicitMembers: o.explicitMembers,
      exportRenderMs: o.exportRenderMs,
      exportContent404UntilReady: o.exportContent404UntilReady === true,
      query: { maxRows: o.queryMaxRows, maxScannedRows: o.queryMaxScannedRows, maxEstimatedRows: o.queryMaxEstimatedRows },
    },
  };
}
