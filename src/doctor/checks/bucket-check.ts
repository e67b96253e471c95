/**
 * The bucket sources doctor was given (--source): each listed and read, and the staging space
 * their objects need against the free space next to the staging file. Pure.
 */
import type { PrefixProbe } from '../../buckets/probe-prefixes.js';
import { bytes, count, plural } from '../../util/format.js';
import { ok, problem, warning, type CheckResult } from '../check-result.js';
import { roomFor, stagingNeed } from '../../machine/disk-estimate.js';

export function bucketCheck(probes: readonly PrefixProbe[], freeBytes: number | undefined): CheckResult {
  const failed = probes.filter((p): p is Extract<PrefixProbe, { type: 'failed' }> => p.type === 'failed');
  if (failed.length > 0) {
    return problem('buckets', failed.map((p) => p.message).join('; '), 'Fix the address or the credentials (docs/sources.md, Buckets), then run doctor again.');
  }
  const readable = probes as ReadonlyArray<Extract<PrefixProbe, { type: 'readable' }>>;
  const objects = readable.reduce((n, p) => n + p.objects, 0);
  const sources = readable.flatMap((p) => [
    { path: `${p.address}#plain`, sizeBytes: p.sizeBytes - p.compressedBytes, compressed: false },
    { path: `${p.address}#compressed`, sizeBytes: p.compressedBytes, compressed: true },
  ]);
  const need = stagingNeed(sources, new Map());
  const size = readable.reduce((n, p) => n + p.sizeBytes, 0);
  const found = `${plural(readable.length, 'bucket source')} listed and read: ${count(objects)} objects, ${bytes(size)}; staging them needs about ${bytes(need.bytes)}${need.exact ? '' : ' (compressed objects guessed at 8 times their size)'}`;
  const details = { objects, sizeBytes: size, neededBytes: need.bytes, freeBytes };
  if (freeBytes === undefined) return ok('buckets', found, details);
  const room = roomFor(freeBytes, need.bytes);
  const fix = 'Free disk space next to the staging file, or put it on a larger disk (--staging <file>).';
  if (room === 'short') return (need.exact ? problem : warning)('buckets', `${found}, more than the ${bytes(freeBytes)} free`, fix, details);
  if (room === 'tight') return warning('buckets', `${found}, more than half of the ${bytes(freeBytes)} free`, fix, details);
  return ok('buckets', `${found}; ${bytes(freeBytes)} free`, details);
}
