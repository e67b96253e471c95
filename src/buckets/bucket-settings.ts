/**
 * Where bucket calls go and who makes them, from the command's flags, the config's
 * `sources.buckets` and the standard AWS environment variables. Pure: the environment is
 * passed in. Keys named by the config are read here and registered for redaction at once.
 */
import { UsageError } from '../errors.js';
import { registerSecret } from '../util/redact.js';
import type { BucketScheme } from './bucket-url.js';
import type { BucketCredentials, S3Settings } from './s3-client.js';

type Env = Readonly<Record<string, string | undefined>>;

/** What the user chose: flags first, then the config's `sources.buckets`. */
export interface BucketChoices {
  /** --endpoint-url, else the config's endpointUrl. */
  endpointUrl?: string;
  /** --profile, else the config's profile. */
  profile?: string;
  region?: string;
  /** Environment variables holding the keys (config `accessKeyIdEnv`, `secretAccessKeyEnv`, `sessionTokenEnv`). */
  keyEnv?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

/** Google Cloud Storage's S3-compatible (XML API) endpoint, used with HMAC keys. */
export const GCS_ENDPOINT = 'https://storage.googleapis.com';
const REQUEST_TIMEOUT_MS = 60_000;

function value(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v === '' ? undefined : v;
}

function keysFromEnv(keyEnv: NonNullable<BucketChoices['keyEnv']>, env: Env): BucketCredentials {
  const read = (name: string, setting: string): string => {
    const v = value(env, name);
    if (v === undefined) throw new UsageError(`sources.buckets.${setting}: environment variable ${name} is not set`);
    registerSecret(v);
    return v;
  };
  const credentials: BucketCredentials = { accessKeyId: read(keyEnv.accessKeyId, 'accessKeyIdEnv'), secretAccessKey: read(keyEnv.secretAccessKey, 'secretAccessKeyEnv') };
  if (keyEnv.sessionToken !== undefined) credentials.sessionToken = read(keyEnv.sessionToken, 'sessionTokenEnv');
  return credentials;
}

/** An endpoint the client can call: an http or https URL; anything else would fail each request as a network error. */
function checkedEndpoint(endpointUrl: string): string {
  let url: URL | undefined;
  try {
    url = new URL(endpointUrl);
  } catch {
    url = undefined;
  }
  if (url !== undefined && (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '') return endpointUrl;
  throw new UsageError(`the bucket endpoint "${endpointUrl}" is not an http:// or https:// URL`, [
    `Write it with its scheme, e.g. http://${endpointUrl.replace(/^[a-z]+:\/\//i, '')} (--endpoint-url, sources.buckets.endpointUrl, AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL).`,
  ]);
}

/** The settings of the client for one scheme: `gs://` goes to GCS's endpoint unless another is given. */
export function resolveS3Settings(scheme: BucketScheme, choices: BucketChoices, env: Env): S3Settings {
  // The secrets the SDK reads itself never reach a message either.
  registerSecret(value(env, 'AWS_SECRET_ACCESS_KEY'));
  registerSecret(value(env, 'AWS_SESSION_TOKEN'));
  const endpointUrl = choices.endpointUrl ?? value(env, 'AWS_ENDPOINT_URL_S3') ?? value(env, 'AWS_ENDPOINT_URL') ?? (scheme === 'gs' ? GCS_ENDPOINT : undefined);
  const region = choices.region ?? value(env, 'AWS_REGION') ?? value(env, 'AWS_DEFAULT_REGION') ?? (scheme === 'gs' ? 'auto' : 'us-east-1');
  const settings: S3Settings = { region, requestTimeoutMs: REQUEST_TIMEOUT_MS };
  if (endpointUrl !== undefined) settings.endpointUrl = checkedEndpoint(endpointUrl);
  if (choices.profile !== undefined) settings.profile = choices.profile;
  if (choices.keyEnv !== undefined) settings.credentials = keysFromEnv(choices.keyEnv, env);
  return settings;
}

/** The endpoint as messages name it. */
export function endpointName(settings: S3Settings): string {
  return settings.endpointUrl ?? `AWS S3 (${settings.region})`;
}

/**
 * The endpoint as part of an object's identity: the same key at another store is another
 * object. A custom endpoint by its origin (scheme, host, port), AWS by name alone (its regions
 * are one store: a bucket elsewhere is followed).
 */
export function endpointIdentity(settings: S3Settings): string {
  if (settings.endpointUrl === undefined) return 'AWS S3';
  try {
    return new URL(settings.endpointUrl).origin;
  } catch {
    return settings.endpointUrl;
  }
}
