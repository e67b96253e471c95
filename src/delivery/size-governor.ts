/**
 * The body size a host takes, learned during a run. A host (or a proxy before it) that refuses
 * bodies over some limit would otherwise see every chunk sent at full size first, then halved
 * until it fits: most requests wasted. After the first "too large", bodies are cut to the
 * largest size that fitted (half the smallest refused size until one fits), and every few
 * accepted bodies one probes halfway towards the smallest refused size, so the size grows back
 * towards the limit and each refused probe narrows the range. Pure.
 */

/** Accepted bodies between two probes of a larger size. */
const PROBE_EVERY = 8;
/** Probing stops once the largest fit is within this share of the smallest refusal. */
const CLOSE_ENOUGH = 0.9;

export class SizeGovernor {
  /** Smallest body refused as too large, in bytes (uncompressed). */
  private refusedBytes = Number.POSITIVE_INFINITY;
  /** Largest body accepted below `refusedBytes`, in bytes; 0 until one is. */
  private fittedBytes = 0;
  private acceptedSinceProbe = 0;

  /** Most bytes the next body should have; Infinity while nothing was refused as too large. */
  targetBytes(): number {
    if (this.refusedBytes === Number.POSITIVE_INFINITY) return Number.POSITIVE_INFINITY;
    if (this.fittedBytes === 0) return Math.floor(this.refusedBytes / 2);
    if (this.acceptedSinceProbe >= PROBE_EVERY && this.fittedBytes < this.refusedBytes * CLOSE_ENOUGH) {
      this.acceptedSinceProbe = 0; // one probe at a time, whatever runs beside it
      return Math.floor((this.fittedBytes + this.refusedBytes) / 2);
    }
    return this.fittedBytes;
  }

  /** A body of `bytes` was accepted. */
  accepted(bytes: number): void {
    if (this.refusedBytes === Number.POSITIVE_INFINITY) return;
    if (bytes < this.refusedBytes) this.fittedBytes = Math.max(this.fittedBytes, bytes);
    this.acceptedSinceProbe++;
  }

  /** A body of `bytes` was refused as too large. */
  refused(bytes: number): void {
    this.refusedBytes = Math.min(this.refusedBytes, bytes);
    if (this.fittedBytes >= this.refusedBytes) this.fittedBytes = 0;
    this.acceptedSinceProbe = 0;
  }
}
