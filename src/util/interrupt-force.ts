/**
 * The second interrupt. The shell aborts the use case's signal on the first Ctrl-C (or SIGTERM,
 * SIGHUP): no new work starts and work in flight gets its grace period. A second one must not
 * wait for requests that hang: it aborts the signal linked here, and the run stops waiting at
 * once, recording what is known.
 */
const forces = new WeakMap<AbortSignal, AbortSignal>();

/** Links `force` (aborted by a second interrupt) to the interrupt `signal` a use case receives. */
export function linkForce(signal: AbortSignal, force: AbortSignal): void {
  forces.set(signal, force);
}

/** The signal a second interrupt aborts, when the shell linked one to `signal`. */
export function forceOf(signal: AbortSignal): AbortSignal | undefined {
  return forces.get(signal);
}
