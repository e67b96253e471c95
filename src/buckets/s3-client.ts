/**
 * The one module that imports the AWS SDK. It turns every S3 call into a value: the answer, or
 * a failure (status, S3's error code, or a network failure) for the caller to judge. The SDK
 * makes one attempt per call (maxAttempts 1): retries, their waits and their clock are the
 * project's (bucket-calls.ts through http/send-with-retry.ts), never the SDK's.
 *
 * Who and where follow the AWS conventions: the SDK's default credential chain (environment,
 * shared config and credentials files with AWS_PROFILE or --profile, SSO, container and
 * instance roles) unless keys are given; the bucket's own region, followed when S3 answers that
 * the bucket is elsewhere; a custom endpoint with path-style addressing.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';

export interface BucketCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface S3Settings {
  /** A custom endpoint (MinIO, R2, GCS, moto); addressed path-style. Absent: AWS's own. */
  endpointUrl?: string;
  /** The region to ask first; a bucket elsewhere is followed. Default us-east-1. */
  region: string;
  /** A profile of the shared config files; absent: AWS_PROFILE or `default`. */
  profile?: string;
  /** Keys to sign with; absent: the SDK's default credential chain. */
  credentials?: BucketCredentials;
  /** Bound on one request up to its answer's headers, in ms. */
  requestTimeoutMs: number;
}

/** Where a listing's next page starts: S3's continuation token, or after a key. */
export type PageStart = { token: string } | { startAfter: string };

export interface ObjectInfo {
  key: string;
  sizeBytes: number;
  /** With its quotes, as S3 gives it. */
  etag: string;
  /** Set by the object's first read in a versioned bucket (listings do not give it). */
  versionId?: string;
}

/** Why a call failed: S3's answer (status and error code), or no answer at all. */
export interface S3Failure {
  /** HTTP status of S3's answer; undefined when none came (network, timeout, aborted). */
  status: number | undefined;
  /** S3's error code (`AccessDenied`, `NoSuchBucket`, `SlowDown`) or the network error's code. */
  code: string;
  message: string;
  /** `setup`: no request could be made (no credentials were found): trying again cannot mend it. */
  kind: 'answer' | 'network' | 'timeout' | 'aborted' | 'setup';
}

export type S3Result<T> = { ok: true; value: T } | { ok: false; failure: S3Failure };

export interface ObjectBody {
  body: Readable;
  etag: string;
  /** The version read, in a versioned bucket; absent otherwise (S3 answers `null` for an unversioned object). */
  versionId?: string;
}

export interface S3Calls {
  /** A page of keys after `after` (a continuation token, or the last key listed when a store gave none); `next` is where the following page starts. */
  listPage(bucket: string, prefix: string, after: PageStart | undefined, signal?: AbortSignal): Promise<S3Result<{ objects: ObjectInfo[]; next: PageStart | undefined }>>;
  /** The object's bytes from `startByte` up to `endByte` (exclusive; absent: its end), only while its ETag is still `etag` (when given). */
  getObject(bucket: string, key: string, at: { startByte: number; endByte?: number; etag?: string }, signal?: AbortSignal): Promise<S3Result<ObjectBody>>;
  close(): void;
}

type SdkError = Error & { $metadata?: { httpStatusCode?: number }; Code?: string; code?: string };

/** An SDK exception as a failure value. */
export function toFailure(error: unknown, signal?: AbortSignal): S3Failure {
  const e = error as SdkError;
  if (signal?.aborted === true || e.name === 'AbortError') return { status: undefined, code: 'Aborted', message: 'the request was abandoned', kind: 'aborted' };
  const status = e.$metadata?.httpStatusCode;
  if (status !== undefined) return { status, code: e.Code ?? e.name, message: e.message, kind: 'answer' };
  if (e.name === 'CredentialsProviderError') return { status: undefined, code: e.name, message: e.message, kind: 'setup' };
  if (e.name === 'TimeoutError' || e.code === 'ETIMEDOUT' || e.name === 'RequestTimeout') return { status: undefined, code: e.code ?? e.name, message: e.message, kind: 'timeout' };
  return { status: undefined, code: e.code ?? e.name, message: e.message, kind: 'network' };
}

/**
 * Where the next page starts: a page marked truncated without a token (some S3-compatible
 * stores) goes on after its last key, never ends the listing there; one with no key either is
 * no listing to follow.
 */
export function nextPage(truncated: boolean, token: string | undefined, objects: readonly ObjectInfo[]): PageStart | undefined {
  if (!truncated) return undefined;
  if (token !== undefined && token !== '') return { token };
  const last = objects.at(-1);
  if (last === undefined)
    throw Object.assign(new Error('a listing page marked truncated gave neither a key nor a continuation token'), { name: 'TruncatedListing', $metadata: { httpStatusCode: 200 } });
  return { startAfter: last.key };
}

/** The error of an answer that is not an S3 listing, as a failure value: S3's answer with code NotAnS3Listing. */
function notAListing(): Error {
  return Object.assign(new Error('the answer is not an S3 listing (ListObjectsV2 XML)'), { name: 'NotAnS3Listing', $metadata: { httpStatusCode: 200 } });
}

/** A key as a listing asked for `EncodingType=url` gives it: form-encoded (`+` a space), unless the store ignored the request. */
export function decodeListedKey(key: string, encodingType: string | undefined): string {
  if (encodingType !== 'url') return key;
  return decodeURIComponent(key.replace(/\+/g, ' '));
}

async function attempt<T>(call: () => Promise<T>, signal?: AbortSignal): Promise<S3Result<T>> {
  try {
    return { ok: true, value: await call() };
  } catch (error) {
    return { ok: false, failure: toFailure(error, signal) };
  }
}

type Sdk = typeof import('@aws-sdk/client-s3');
let sdk: Promise<Sdk> | undefined;
/** The SDK is loaded at the first call, not with this module: it adds about 35 MB to a process's resident memory, which a run without a bucket does not need. */
const loadSdk = (): Promise<Sdk> => (sdk ??= import('@aws-sdk/client-s3'));

export function createS3Calls(settings: S3Settings): S3Calls {
  let client: S3Client | undefined;
  let closed = false;
  const connect = async (): Promise<{ client: S3Client; commands: Sdk }> => {
    const commands = await loadSdk();
    if (client === undefined) {
      client = newClient(commands, settings);
      if (closed) client.destroy();
    }
    return { client, commands };
  };
  return {
    listPage: (bucket, prefix, after, signal) =>
      attempt(async () => {
        const { client, commands } = await connect();
        const start = after === undefined ? {} : 'token' in after ? { ContinuationToken: after.token } : { StartAfter: after.startAfter };
        // Keys come URL-encoded: XML cannot carry some characters a key may hold (a carriage return is read back as a line feed).
        const page = await client.send(new commands.ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ...start, EncodingType: 'url' }), { abortSignal: signal });
        // Every S3 listing names its bucket and counts its keys: an answer with neither (a console's HTML page) is no listing, not an empty prefix.
        if (page.Name === undefined && page.KeyCount === undefined && page.Contents === undefined) throw notAListing();
        const objects = (page.Contents ?? []).map((o) => ({ key: decodeListedKey(o.Key ?? '', page.EncodingType), sizeBytes: o.Size ?? 0, etag: o.ETag ?? '' }));
        return { objects, next: nextPage(page.IsTruncated === true, page.NextContinuationToken, objects) };
      }, signal),
    getObject: (bucket, key, at, signal) =>
      attempt(async () => {
        const { client, commands } = await connect();
        const range = at.endByte !== undefined && at.endByte > at.startByte ? `bytes=${at.startByte}-${at.endByte - 1}` : at.startByte > 0 ? `bytes=${at.startByte}-` : undefined;
        const answer = await client.send(new commands.GetObjectCommand({ Bucket: bucket, Key: key, Range: range, IfMatch: at.etag }), { abortSignal: signal });
        const versionId = answer.VersionId === undefined || answer.VersionId === 'null' ? undefined : answer.VersionId;
        return { body: answer.Body as Readable, etag: answer.ETag ?? '', versionId };
      }, signal),
    close: () => {
      closed = true;
      client?.destroy();
    },
  };
}

function newClient({ S3Client }: Sdk, settings: S3Settings): S3Client {
  return new S3Client({
    region: settings.region,
    endpoint: settings.endpointUrl,
    forcePathStyle: settings.endpointUrl !== undefined,
    followRegionRedirects: true,
    maxAttempts: 1,
    profile: settings.profile,
    credentials: settings.credentials,
    // Ranged reads of an object carry no whole-object checksum; bytes are checked by the readers (gzip, zip CRC).
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestChecksumCalculation: 'WHEN_REQUIRED',
    requestHandler: { requestTimeout: settings.requestTimeoutMs, connectionTimeout: Math.min(settings.requestTimeoutMs, 30_000) },
  });
}
