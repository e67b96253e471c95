import { describe, expect, it } from 'vitest';
import { bucketError } from '../../src/buckets/bucket-errors.js';
import { manifestBeside } from '../../src/sources/run-manifests.js';
import { nextPage } from '../../src/buckets/s3-client.js';
import { resolveS3Settings } from '../../src/buckets/bucket-settings.js';
import { parseBucketUrl } from '../../src/buckets/bucket-url.js';
import { toFailure, type S3Failure } from '../../src/buckets/s3-client.js';
import { ExitCode } from '../../src/errors.js';

describe('bucket addresses', () => {
  it.each([
    ['s3://b/exports/', { scheme: 's3', bucket: 'b', path: 'exports/' }],
    ['s3://b', { scheme: 's3', bucket: 'b', path: '' }],
    ['gs://b/a#1.json.gz', { scheme: 'gs', bucket: 'b', path: 'a#1.json.gz' }],
    ['s3:/b/x', undefined],
    ['/tmp/x', undefined],
  ])('%s', (arg, parsed) => expect(parseBucketUrl(arg)).toEqual(parsed));

  it("reads a manifest's files as keys beside it, wherever the export wrote them", () => {
    const files = (text: string, key: string): unknown => {
      const manifest = manifestBeside(key, text, `s3://b/${key}`);
      return 'error' in manifest ? manifest.error : manifest.files;
    };
    expect(files('{"files":["p/a-0.jsonl","s3://b/p/a-1.jsonl"]}', 'p/a_manifest.json')).toEqual(['p/a-0.jsonl', 'p/a-1.jsonl']);
    expect(files('{"files":["events/a-0.jsonl"]}', 'backup/events/a_manifest.json')).toEqual(['backup/events/a-0.jsonl']);
    expect(files('{"files":["events/a-0.jsonl"]}', 'a_manifest.json')).toEqual(['a-0.jsonl']);
    expect(files('{"nope":1}', 'm_manifest.json')).toContain('without a "files" list');
  });
});

describe('S3 failures in words', () => {
  const list = { type: 'list', bucket: 'b', url: 's3://b/exports/' } as const;
  const read = { type: 'read', bucket: 'b', url: 's3://b/exports/a.json' } as const;
  const answer = (status: number, code: string): S3Failure => ({ status, code, message: 'x', kind: 'answer' });

  // The error values are the SDK's own shape (name, Code, $metadata.httpStatusCode), as moto answers them; moto does not enforce permissions, so refusals are checked here.
  it.each([
    [answer(403, 'AccessDenied'), list, 's3://b/exports/: access denied listing it: the credentials need s3:ListBucket on bucket b', ExitCode.auth],
    [answer(403, 'AccessDenied'), read, 's3://b/exports/a.json: access denied reading it: the credentials need s3:GetObject on s3://b/exports/a.json', ExitCode.auth],
    [answer(404, 'NoSuchBucket'), list, 's3://b/exports/: no such bucket "b" at http://127.0.0.1:9', ExitCode.input],
    [answer(404, 'NoSuchKey'), read, 's3://b/exports/a.json: no such object', ExitCode.input],
    [answer(412, 'PreconditionFailed'), read, 'the object changed while it was being read', ExitCode.input],
    [answer(403, 'InvalidAccessKeyId'), list, 'the credentials were refused (InvalidAccessKeyId)', ExitCode.auth],
    [answer(503, 'SlowDown'), read, 'kept failing (HTTP 503 SlowDown), after retries', ExitCode.remote],
    [{ status: undefined, code: 'ECONNREFUSED', message: 'x', kind: 'network' } as S3Failure, list, 'cannot reach http://127.0.0.1:9 (network error ECONNREFUSED)', ExitCode.remote],
    [
      { status: undefined, code: 'CredentialsProviderError', message: 'Could not load credentials from any providers', kind: 'network' } as S3Failure,
      list,
      'no AWS credentials were found',
      ExitCode.auth,
    ],
  ])('%o while %o', (failure, action, words, exitCode) => {
    const error = bucketError(failure, action, 'http://127.0.0.1:9');
    expect(error.message).toContain(words);
    expect(error.exitCode).toBe(exitCode);
  });

  it('turns the SDK exceptions into failure values', () => {
    const sdkError = Object.assign(new Error('Access Denied'), { name: 'AccessDenied', Code: 'AccessDenied', $metadata: { httpStatusCode: 403 } });
    expect(toFailure(sdkError)).toEqual({ status: 403, code: 'AccessDenied', message: 'Access Denied', kind: 'answer' });
    expect(toFailure(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED', $metadata: { attempts: 1 } }))).toMatchObject({ kind: 'network', code: 'ECONNREFUSED' });
  });
});

describe('where bucket calls go', () => {
  it.each([
    ['s3', {}, {}, { region: 'us-east-1' }],
    ['s3', {}, { AWS_ENDPOINT_URL: 'http://a:9000', AWS_ENDPOINT_URL_S3: 'http://s3:9000', AWS_REGION: 'eu-west-1' }, { endpointUrl: 'http://s3:9000', region: 'eu-west-1' }],
    ['s3', { endpointUrl: 'http://flag:1' }, { AWS_ENDPOINT_URL_S3: 'http://s3:9000' }, { endpointUrl: 'http://flag:1' }],
    ['gs', {}, {}, { endpointUrl: 'https://storage.googleapis.com', region: 'auto' }],
    ['s3', { profile: 'prod' }, {}, { profile: 'prod' }],
  ] as const)('%s %o %o', (scheme, choices, env, expected) => {
    expect(resolveS3Settings(scheme, choices, env)).toMatchObject(expected);
  });

  it('reads keys from the variables the config names, and says which one is missing', () => {
    const keyEnv = { accessKeyId: 'MY_ID', secretAccessKey: 'MY_SECRET' };
    expect(resolveS3Settings('s3', { keyEnv }, { MY_ID: 'AKIAEXAMPLE', MY_SECRET: 'secret-value' }).credentials).toEqual({ accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret-value' });
    expect(() => resolveS3Settings('s3', { keyEnv }, { MY_ID: 'AKIAEXAMPLE' })).toThrow('sources.buckets.secretAccessKeyEnv: environment variable MY_SECRET is not set');
  });
});

describe('bucket objects per prefix, for status', () => {
  it('counts objects done, partial and not read, a zip object by its entries', async () => {
    const { bucketPrefixes } = await import('../../src/staging/bucket-objects.js');
    const objects = [
      { url: 's3://b/a/1.json', sizeBytes: 10 },
      { url: 's3://b/a/2.json', sizeBytes: 20 },
      { url: 's3://b/a/3.json', sizeBytes: 30 },
      { url: 's3://b/z/x.zip', sizeBytes: 5 },
      { url: 's3://b/z/y.zip', sizeBytes: 5 },
    ];
    const states = new Map([
      ['s3://b/a/1.json', 'done'],
      ['s3://b/a/2.json', 'partial'],
      ['s3://b/z/x.zip!e1.json', 'done'],
      ['s3://b/z/x.zip!e2.json', 'done'],
      ['s3://b/z/y.zip!e1.json', 'done'],
      ['s3://b/z/y.zip!e2.json', 'interrupted'],
    ]);
    expect(bucketPrefixes(objects, states)).toEqual([
      { prefix: 's3://b/a/', objects: 3, done: 1, partial: 1, pending: 1, sizeBytes: 60 },
      { prefix: 's3://b/z/', objects: 2, done: 1, partial: 1, pending: 0, sizeBytes: 10 },
    ]);
  });
});

describe("doctor's bucket check", () => {
  it('sums the objects, estimates the staging space, and compares it with the free space', async () => {
    const { bucketCheck } = await import('../../src/doctor/checks/bucket-check.js');
    const readable = { address: 's3://b/p/', type: 'readable', objects: 3, sizeBytes: 100e6, compressedBytes: 0 } as const;
    expect(bucketCheck([readable], 1e12)).toMatchObject({ verdict: 'ok', message: expect.stringContaining('3 objects') });
    expect(bucketCheck([readable], 100e6)).toMatchObject({ verdict: 'problem', message: expect.stringContaining('more than the') });
    expect(bucketCheck([{ ...readable, compressedBytes: 100e6 }], 100e6)).toMatchObject({ verdict: 'warning', message: expect.stringContaining('guessed') });
    expect(bucketCheck([readable, { address: 's3://x/', type: 'failed', message: 's3://x/: no such bucket "x"' }], 1e12)).toMatchObject({ verdict: 'problem', message: 's3://x/: no such bucket "x"' });
  });

  it.each([
    { truncated: false, token: undefined, keys: ['a'], next: undefined },
    { truncated: true, token: 't1', keys: ['a', 'b'], next: { token: 't1' } },
    // Marked truncated without a token (some S3-compatible stores): the listing goes on after its last key.
    { truncated: true, token: undefined, keys: ['a', 'b'], next: { startAfter: 'b' } },
    { truncated: true, token: '', keys: ['a'], next: { startAfter: 'a' } },
  ])('a page truncated=$truncated with token $token goes on at $next', ({ truncated, token, keys, next }) => {
    expect(
      nextPage(
        truncated,
        token,
        keys.map((key) => ({ key, sizeBytes: 1, etag: '"e"' })),
      ),
    ).toEqual(next);
  });

  it('refuses a page marked truncated with neither a key nor a token', () => {
    expect(() => nextPage(true, undefined, [])).toThrow('neither a key nor a continuation token');
  });
});
