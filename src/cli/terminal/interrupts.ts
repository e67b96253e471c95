/**
 * Ctrl-C and SIGTERM become an abort signal that long loops check between batches, so they
 * stop at a consistent point, save progress and say how to continue. The signal's reason is
 * the name of the signal that arrived (see interruptedBy).
 */
export interface InterruptWatch {
  readonly signal: AbortSignal;
  dispose(): void;
}

export function watchInterrupts(): InterruptWatch {
  const controller = new AbortController();
  const handler = (signal: NodeJS.Signals): void => {
    if (!controller.signal.aborted) controller.abort(signal);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    signal: controller.signal,
    dispose() {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}
