/**
 * Reading a capture request's body, counting bytes as they arrive: at most 20 MiB as received
 * and `maxBodyBytes` once decompressed (100 MiB by default, as PostHog), a 413 as soon as
 * either is passed, without reading or inflating the rest. gzip is recognised by its magic
 * bytes or hinted (`?compression=gzip`, `Content-Encoding: gzip`).
 */
import type { Readable } from 'node:stream';
import { createGunzip, gunzipSync, type Gunzip } from 'node:zlib';
import { captureProblem, type CaptureProblem } from './capture-problem.js';

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

/** One body being read: chunks counted as they come, gzip inflated once it is worth a stream. */
class BodyReader {
  private readonly parts: Buffer[] = [];
  private received = 0;
  private gzip: boolean | undefined;
  private inflater: CountingInflater | undefined;
  private done = false;

  constructor(
    private readonly stream: Readable,
    private readonly gzipHinted: boolean,
    private readonly limits: BodyLimits,
    private readonly resolve: (result: ReadBody | CaptureProblem) => void,
  ) {
    stream.on('data', this.onData);
    stream.on('end', this.onEnd);
    // A connection that breaks mid-body: there is no one left to answer, but the reading ends.
    const broken = (): void => this.finish(captureProblem(400, 'invalid_payload', 'failed to read request body'));
    stream.on('error', broken);
    stream.on('close', () => {
      if (!stream.readableEnded) broken();
    });
  }

  private finish(result: ReadBody | CaptureProblem): void {
    if (this.done) return;
    this.done = true;
    this.stream.off('data', this.onData);
    this.stream.off('end', this.onEnd);
    // What is left is not read: the answer goes out now and the connection is closed.
    if ('problem' in result) this.stream.pause();
    this.resolve(result);
  }

  private readonly onData = (chunk: Buffer): void => {
    const limits = this.limits;
    this.received += chunk.length;
    if (this.received > limits.maxReceivedBytes) return this.finish(tooLarge(limits.maxReceivedBytes));
    // The input waits while the inflater is behind, so a bomb is stopped early.
    if (this.inflater) {
      if (!this.inflater.write(chunk)) this.stream.pause();
    } else this.parts.push(chunk);
    this.gzip ??= gzipDecision(this.parts, this.received, false, this.gzipHinted);
    if (this.gzip === false && this.received > limits.maxBodyBytes) return this.finish(tooLarge(limits.maxBodyBytes));
    if (this.gzip === true && this.inflater === undefined && this.received > INFLATE_IN_ONE_CALL_BYTES) this.startInflating();
  };

  private startInflating(): void {
    const inflater = new CountingInflater(this.limits.maxBodyBytes, (problem) => this.finish(problem));
    this.inflater = inflater;
    inflater.onDrain(() => {
      if (!this.done) this.stream.resume();
    });
    if (
      !this.parts
        .splice(0)
        .map((part) => inflater.write(part))
        .every(Boolean)
    )
      this.stream.pause();
  }

  private readonly onEnd = (): void => {
    if (this.inflater) return void this.inflater.end().then((out) => this.finish('problem' in out ? out : { bytes: out, inflated: true }));
    const raw = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.received);
    if (!gzipDecision(this.parts, this.received, true, this.gzipHinted) || raw.length === 0) return this.finish({ bytes: raw, inflated: false });
    const out = inflateAll(raw, this.limits.maxBodyBytes);
    this.finish('problem' in out ? out : { bytes: out, inflated: true });
  };
}

/** Reads `stream` to its end or to the first limit passed; never throws. */
export function readCaptureBody(stream: Readable, gzipHinted: boolean, limits: BodyLimits): Promise<ReadBody | CaptureProblem> {
  return new Promise((resolve) => new BodyReader(stream, gzipHinted, limits, resolve));
}
