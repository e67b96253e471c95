/**
 * Ctrl-C and SIGTERM become an abort signal that long loops check between batches, so they
 * stop at a consistent point, save progress and say how to continue.
 */
export interface InterruptWatch {
  readonly signal: AbortSignal;
  /** Which signal arrived, once one has. */
  readonly received: () => NodeJS.Signals | undefined;
  dispose(): void;
}

export function watchInterrupts(onSignal?: (signal: NodeJS.Signals) => void): InterruptWatch {
  const controller = new AbortController();
  let received: NodeJS.Signals | undefined;
  const handler = (signal: NodeJS.Signals): void => {
    if (received !== undefined) return;
    received = signal;
    onSignal?.(signal);
    controller.abort();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    signal: controller.signal,
    received: () => received,
    dispose() {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}
