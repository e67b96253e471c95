/**
 * Errors that escape to the process while a use case runs (thrown from a socket's event
 * handler inside the HTTP client, a promise rejected with nobody awaiting it) would end the run
 * with a stack trace, leaving its work half-recorded. While watched, they abort a signal
 * instead, with the error as its reason: the use case stops its work in flight, undoes it, and
 * ends with the error in words.
 */
export interface UnexpectedErrorWatch {
  readonly signal: AbortSignal;
  dispose(): void;
}

export function watchUnexpectedErrors(): UnexpectedErrorWatch {
  const controller = new AbortController();
  const handler = (error: unknown): void => {
    if (!controller.signal.aborted) controller.abort(error);
  };
  process.on('uncaughtException', handler);
  process.on('unhandledRejection', handler);
  return {
    signal: controller.signal,
    dispose() {
      process.off('uncaughtException', handler);
      process.off('unhandledRejection', handler);
    },
  };
}
