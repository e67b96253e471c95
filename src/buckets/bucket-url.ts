/**
 * Bucket addresses on the command line, pure: `s3://bucket/prefix/`, `s3://bucket/key`,
 * `s3://bucket/exports/2024-*\/*.json.gz`, and `gs://` for Google Cloud Storage (read through
 * its S3-compatible endpoint). Keys are matched as file names are (sources/places/).
 */
export type BucketScheme = 's3' | 'gs';

export interface BucketUrl {
  scheme: BucketScheme;
  bucket: string;
  /** Everything after `bucket/`, as written (may be empty). */
  path: string;
}

const BUCKET_URL = /^(s3|gs):\/\/([^/]+)(?:\/(.*))?$/s;

export function isBucketUrl(arg: string): boolean {
  return /^(s3|gs):\/\//.test(arg);
}

/** The parts of an address, or undefined when it is not one (`s3://` without a bucket). */
export function parseBucketUrl(arg: string): BucketUrl | undefined {
  const match = BUCKET_URL.exec(arg);
  if (match === null) return undefined;
  return { scheme: match[1] as BucketScheme, bucket: match[2]!, path: match[3] ?? '' };
}

/** The address of one object, as it is named in messages and recorded in the staging file. */
export function objectUrl(scheme: BucketScheme, bucket: string, key: string): string {
  return `${scheme}://${bucket}/${key}`;
}
