/**
 * S3 failures in words, pure: what went wrong, with the address and, for a refusal, the
 * permission the credentials lack. Never the SDK's stack, never a key.
 */
import { AuthError, InputError, InterruptedError, RemoteError, type MigrateError } from '../errors.js';
import type { S3Failure } from './s3-client.js';

/** What was being done: listing keys under a prefix, or reading one object. */
export type BucketAction = { type: 'list'; bucket: string; url: string } | { type: 'read'; bucket: string; url: string };

const CREDENTIAL_HINTS = [
  'Credentials come from the AWS default chain: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE or --profile (shared config and SSO), or a container or instance role;',
  'or from the environment variables the config file names under sources.buckets (see docs/sources.md).',
];

const KEY_CODES = new Set(['InvalidAccessKeyId', 'SignatureDoesNotMatch', 'ExpiredToken', 'InvalidToken', 'TokenRefreshRequired', 'AuthorizationHeaderMalformed']);

function permission(action: BucketAction): string {
  return action.type === 'list' ? `s3:ListBucket on bucket ${action.bucket}` : `s3:GetObject on ${action.url}`;
}

function doing(action: BucketAction): string {
  return action.type === 'list' ? 'listing' : 'reading';
}

/** The error that ends the command for a failure that retries did not mend (or that is not transient). */
export function bucketError(failure: S3Failure, action: BucketAction, endpoint: string): MigrateError {
  const { url } = action;
  if (failure.kind === 'aborted') return new InterruptedError(`interrupted while ${doing(action)} ${url}`, ['Run the same command again: what was staged is kept and the rest is read.']);
  if (failure.code === 'CredentialsProviderError' || /credential/i.test(failure.code)) {
    return new AuthError(`${url}: no AWS credentials were found (${failure.message.split('\n')[0]})`, CREDENTIAL_HINTS);
  }
  if (failure.kind !== 'answer') {
    return new RemoteError(`${url}: cannot reach ${endpoint} (${failure.kind === 'timeout' ? 'no answer in time' : `network error ${failure.code}`}), after retries`, [
      'Check the endpoint (--endpoint-url, AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL) and the network, then run the same command again: it resumes.',
    ]);
  }
  if (failure.code === 'NotAnS3Listing' || failure.code === 'SerializationException' || /Deserialization|not well-formed|Unexpected/i.test(failure.message)) {
    return new InputError(`${url}: ${endpoint} answered, but not with an S3 listing (a web page?): is it the store's S3 API port, not its console?`, [
      "Point --endpoint-url (or AWS_ENDPOINT_URL_S3) at the S3 API: MinIO's is port 9000 by default, its console 9001.",
    ]);
  }
  if (failure.code === 'NoSuchBucket') return new InputError(`${url}: no such bucket "${action.bucket}" at ${endpoint}`, ['Check the bucket name, and the endpoint when it is not AWS.']);
  if (failure.code === 'NoSuchKey' || (failure.status === 404 && action.type === 'read')) return new InputError(`${url}: no such object (it was deleted after it was listed?)`);
  if (failure.code === 'PreconditionFailed' || failure.status === 412) {
    return new InputError(`${url}: the object changed while it was being read (its ETag is not the one listed)`, ['Run the same command again: the new version is read as a changed file.']);
  }
  if (KEY_CODES.has(failure.code)) return new AuthError(`${url}: the credentials were refused (${failure.code})`, CREDENTIAL_HINTS);
  if (failure.code === 'AccessDenied' || failure.code === 'AllAccessDisabled' || failure.status === 403) {
    return new AuthError(`${url}: access denied ${doing(action)} it: the credentials need ${permission(action)}`, CREDENTIAL_HINTS);
  }
  if (failure.status !== undefined && failure.status >= 500) {
    return new RemoteError(`${url}: ${endpoint} kept failing (HTTP ${failure.status} ${failure.code}), after retries`, ['Run the same command again later: it resumes where this run stopped.']);
  }
  return new RemoteError(`${url}: ${endpoint} answered HTTP ${failure.status} ${failure.code}: ${failure.message}`);
}
