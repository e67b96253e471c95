/**
 * doctor's look at bucket sources before anything is staged: each address listed (the
 * credentials may list it), the first byte of its first object read (they may read it), and
 * the sizes of the objects it names, for the staging-space estimate. Failures come back as
 * values, in the words a staging run would use.
 */
import { MigrateError } from '../errors.js';
import type { Clock } from '../util/clock.js';
import { withRetries, type BucketContext } from './bucket-calls.js';
import { listObjects } from './bucket-listing.js';
import { endpointName, resolveS3Settings, type BucketChoices } from './bucket-settings.js';
import { objectUrl, parseBucketUrl } from './bucket-url.js';
import { createS3Calls } from './s3-client.js';
import type { RetryPolicy } from '../http/retry-policy.js';

export type PrefixProbe = { address: string; type: 'readable'; objects: number; sizeBytes: number; compressedBytes: number } | { address: string; type: 'failed'; message: string };

export interface ProbeInput {
  addresses: readonly string[];
  extensions: readonly string[];
  choices: BucketChoices;
  env: Readonly<Record<string, string | undefined>>;
  clock: Clock;
  policy: RetryPolicy;
  signal?: AbortSignal;
}

async function probeOne(context: BucketContext, address: string, extensions: readonly string[]): Promise<PrefixProbe> {
  try {
    const { address: parsed, objects, missing } = await listObjects(context, address, extensions);
    // A batch export run whose manifest lists a file that is not there is incomplete: staging it would fail.
    if (missing.length > 0) return { address, type: 'failed', message: `a batch export run is incomplete: ${missing[0]}${missing.length > 1 ? ` (and ${missing.length - 1} more)` : ''}` };
    const first = objects[0]!;
    const url = objectUrl(parsed.scheme, parsed.bucket, first.key);
    if (first.sizeBytes > 0) {
      const { body } = await withRetries(context, { type: 'read', bucket: parsed.bucket, url }, () => context.calls.getObject(parsed.bucket, first.key, { startByte: 0, endByte: 1 }, context.signal));
      body.destroy();
    }
    const compressed = objects.filter((o) => /\.(gz|zip)$/i.test(o.key));
    const sum = (list: typeof objects): number => list.reduce((total, o) => total + o.sizeBytes, 0);
    return { address, type: 'readable', objects: objects.length, sizeBytes: sum(objects), compressedBytes: sum(compressed) };
  } catch (error) {
    if (error instanceof MigrateError) return { address, type: 'failed', message: error.message };
    throw error;
  }
}

export async function probePrefixes(input: ProbeInput): Promise<PrefixProbe[]> {
  const probes: PrefixProbe[] = [];
  for (const address of input.addresses) {
    const scheme = parseBucketUrl(address)?.scheme ?? 's3';
    const settings = resolveS3Settings(scheme, input.choices, input.env);
    const calls = createS3Calls(settings);
    try {
      probes.push(await probeOne({ calls, clock: input.clock, policy: input.policy, endpoint: endpointName(settings), signal: input.signal }, address, input.extensions));
    } finally {
      calls.close();
    }
  }
  return probes;
}
