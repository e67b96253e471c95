/**
 * Reading a capture request's body, counting bytes as they arrive: at most 20 MiB as received
 * and `maxBodyBytes` once decompressed (100 MiB by default, as PostHog), a 413 as soon as
 * either is passed, without reading or inflating the rest. gzip is recognised by its magic
 * bytes or hinted (`?compression=gzip`, `Content-Encoding: gzip`).
 */
import type { Readable } from 'node:stream';
import { createGunzip, gunzipSync, type Gunzip } from 'node:zlib';
import { captureProblem, type CaptureProblem } from './capture-problem.js';

/** PostHog's limit on a body as received. */
export const DEFAULT_MAX_RECEIVED_BYTES = 20 * 1024 * 1024;
/** PostHog's limit on a body once decompressed. */
export const DEFAULT_MAX_BODY_BYTES = 100 * 1024 * 1024;
/** Below this many compressed bytes, inflating in one call is cheaper than a stream. */
const INFLATE_IN_ONE_CALL_BYTES = 1024 * 1024;

const GZIP_MAGIC = [0x1f, 0x8b, 0x08];

export interface BodyLimits {
  maxReceivedBytes: number;
  maxBodyBytes: number;
}

export interface ReadBody {
  bytes: Buffer;
  /** Whether the body was gzip and `bytes` is what it inflated to. */
  inflated: boolean;
}

export function looksGzipped(raw: Uint8Array): boolean {
  return raw.length >= 3 && GZIP_MAGIC.every((byte, i) => raw[i] === byte);
}

export function tooLarge(limit: number, what = 'request body'): CaptureProblem {
  return captureProblem(413, 'payload_too_large', `${what} exceeds the limit of ${limit} bytes`);
}

const badGzip = (): CaptureProblem => captureProblem(400, 'invalid_payload', 'failed to decode request: invalid gzip data');

/** Inflates a whole gzip body, stopping at the limit (a 413) rather than inflating it all. */
export function inflateAll(raw: Buffer, maxBytes: number): Buffer | CaptureProblem {
  try {
    const out = gunzipSync(raw, { maxOutputLength: maxBytes + 1 });
    return out.length > maxBytes ? tooLarge(maxBytes) : out;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) return tooLarge(maxBytes);
    return badGzip();
  }
}

/** A gzip stream whose output is counted as it comes; over the limit it stops. */
class CountingInflater {
  private readonly gunzip: Gunzip;
  private readonly parts: Buffer[] = [];
  private size = 0;
  problem: CaptureProblem | undefined;

  constructor(
    private readonly maxBytes: number,
    private readonly onProblem: (problem: CaptureProblem) => void,
  ) {
    this.gunzip = createGunzip({ chunkSize: 256 * 1024 });
    this.gunzip.on('data', (chunk: Buffer) => {
      this.size += chunk.length;
      if (this.size > this.maxBytes) this.fail(tooLarge(this.maxBytes));
      else this.parts.push(chunk);
    });
    this.gunzip.on('error', () => this.fail(badGzip()));
  }

  private fail(problem: CaptureProblem): void {
    if (this.problem !== undefined) return;
    this.problem = problem;
    this.parts.length = 0;
    this.gunzip.destroy();
    this.onProblem(problem);
  }

  /** Writes a chunk; false when the inflater wants the input to wait for `onDrain`. */
  write(chunk: Buffer): boolean {
    return this.problem === undefined ? this.gunzip.write(chunk) : true;
  }

  onDrain(resume: () => void): void {
    this.gunzip.on('drain', resume);
  }

  end(): Promise<Buffer | CaptureProblem> {
    if (this.problem) return Promise.resolve(this.problem);
    return new Promise((resolve) => {
      this.gunzip.once('end', () => resolve(this.problem ?? Buffer.concat(this.parts, this.size)));
      this.gunzip.once('close', () => resolve(this.problem ?? Buffer.concat(this.parts, this.size)));
      this.gunzip.end();
    });
  }
}

/** Whether the body is gzip, once its first three bytes are in (or it ended). */
function gzipDecision(parts: Buffer[], received: number, ended: boolean, hinted: boolean): boolean | undefined {
  if (hinted) return received > 0 || ended ? true : undefined;
  if (received < 3 && !ended) return undefined;
  return looksGzipped(parts.length === 1 ? parts[0]! : Buffer.concat(parts).subarray(0, 3));
}

/** Reads `stream` to its end or to the first limit passed; never throws. */
export function readCaptureBody(stream: Readable, gzipHinted: boolean, limits: BodyLimits): Promise<ReadBody | CaptureProblem> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    let received = 0;
    let gzip: boolean | undefined;
    let inflater: CountingInflater | undefined;
    let done = false;
    const finish = (result: ReadBody | CaptureProblem): void => {
      if (done) return;
      done = true;
      stream.off('data', onData);
      stream.off('end', onEnd);
      // What is left is not read: the answer goes out now and the connection is closed.
      if ('problem' in result) stream.pause();
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > limits.maxReceivedBytes) return finish(tooLarge(limits.maxReceivedBytes));
      // The input waits while the inflater is behind, so a bomb is stopped early.
      if (inflater) {
        if (!inflater.write(chunk)) stream.pause();
      } else parts.push(chunk);
      gzip ??= gzipDecision(parts, received, false, gzipHinted);
      if (gzip === false && received > limits.maxBodyBytes) return finish(tooLarge(limits.maxBodyBytes));
      if (gzip === true && inflater === undefined && received > INFLATE_IN_ONE_CALL_BYTES) {
        const started = new CountingInflater(limits.maxBodyBytes, (problem) => finish(problem));
        inflater = started;
        started.onDrain(() => {
          if (!done) stream.resume();
        });
        if (!parts.splice(0).map((part) => started.write(part)).every(Boolean)) stream.pause();
      }
    };
    const onEnd = (): void => {
      if (inflater) return void inflater.end().then((out) => finish('problem' in out ? out : { bytes: out, inflated: true }));
      const raw = parts.length === 1 ? parts[0]! : Buffer.concat(parts, received);
      if (!gzipDecision(parts, received, true, gzipHinted) || raw.length === 0) return finish({ bytes: raw, inflated: false });
      const out = inflateAll(raw, limits.maxBodyBytes);
      finish('problem' in out ? out : { bytes: out, inflated: true });
    };
    stream.on('data', onData);
    stream.on('end', onEnd);
    // A connection that breaks mid-body: there is no one left to answer, but the reading ends.
    const broken = (): void => finish(captureProblem(400, 'invalid_payload', 'failed to read request body'));
    stream.on('error', broken);
    stream.on('close', () => {
      if (!stream.readableEnded) broken();
    });
  });
}
