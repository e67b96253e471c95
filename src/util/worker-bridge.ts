/**
 * Requests to a worker thread and their answers, for both pools of worker threads (staging's
 * piece readers, the import's chunk reader). The parent sends a request with an id; the worker
 * answers requests one at a time, in order, with the value or its error as plain data. Buffers
 * named by the worker move to the parent instead of being copied. Errors of ours keep their
 * class across the thread, so their exit code too.
 */
import { parentPort, Worker, type TransferListItem, type WorkerOptions } from 'node:worker_threads';
import { AuthError, DeliveryStoppedError, ExitCode, InputError, InterruptedError, MigrateError, RefusedError, RemoteError, StagingError, UsageError } from '../errors.js';

/** An error as plain data, to cross between threads. */
export interface ErrorData {
  name: string;
  message: string;
  stack?: string;
  hints?: readonly string[];
}

type Request<Req> = { id: number; request: Req } | { close: true };
type Reply<Res> = { id: number; value: Res } | { id: number; error: ErrorData };

const ERROR_CLASSES: Readonly<Record<string, new (message: string, hints?: readonly string[]) => MigrateError>> = {
  UsageError,
  InputError,
  AuthError,
  DeliveryStoppedError,
  RefusedError,
  StagingError,
  RemoteError,
  InterruptedError,
};

export function errorData(error: unknown): ErrorData {
  const err = error instanceof Error ? error : new Error(String(error));
  return { name: err.name, message: err.message, stack: err.stack, hints: err instanceof MigrateError ? err.hints : undefined };
}

export function reviveError(data: ErrorData): Error {
  const ErrorClass = ERROR_CLASSES[data.name];
  const revived = ErrorClass ? new ErrorClass(data.message, data.hints) : data.name === 'MigrateError' ? new MigrateError(data.message, ExitCode.internal, data.hints) : new Error(data.message);
  revived.stack = data.stack;
  return revived;
}

export interface WorkerBridge<Req, Res> {
  /** Sends a request; resolves with the worker's answer, or rejects with its error. */
  call(request: Req): Promise<Res>;
  /** Lets the worker finish what it was asked, then exit; resolves once it has. */
  close(): Promise<void>;
  /** Stops the worker at once; calls still pending never settle, or fail with `reason` when given. */
  terminate(reason?: Error): Promise<void>;
}

/** Starts the worker at `url` (a module that calls serveRequests). */
export function startWorker<Req, Res>(url: URL, options: WorkerOptions = {}): WorkerBridge<Req, Res> {
  const worker = new Worker(url, options);
  const pending = new Map<number, { resolve: (value: Res) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  let exited = false;
  // A worker that died (an error thrown from one of its handlers after its answer, say) answers
  // no later call: those fail with what ended it, and so does closing it, instead of waiting forever.
  let died: Error | undefined;
  let terminated = false;
  const rejectPending = (error: Error): void => {
    for (const waiter of pending.values()) waiter.reject(error);
    pending.clear();
  };
  const failAll = (error: Error): void => {
    died ??= error;
    rejectPending(error);
  };
  worker.on('message', (reply: Reply<Res>) => {
    const waiter = pending.get(reply.id);
    pending.delete(reply.id);
    if ('error' in reply) waiter?.reject(reviveError(reply.error));
    else waiter?.resolve(reply.value);
  });
  worker.on('error', failAll);
  worker.once('exit', (code: number) => {
    exited = true;
    if (code !== 0 && !terminated) failAll(new Error(`the worker thread stopped (exit code ${code})`));
  });
  const post = (message: Request<Req>): void => worker.postMessage(message);
  return {
    call(request) {
      if (died !== undefined) return Promise.reject(died);
      const id = nextId++;
      return new Promise<Res>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        post({ id, request });
      });
    },
    close() {
      return new Promise<void>((resolve, reject) => {
        const settle = (): void => (died === undefined ? resolve() : reject(died));
        if (exited) return settle();
        worker.once('exit', settle);
        post({ close: true });
      });
    },
    async terminate(reason) {
      terminated = true;
      if (reason !== undefined) rejectPending(reason);
      pending.clear();
      await worker.terminate();
    },
  };
}

/**
 * The worker's side: answers the parent's requests one at a time, in order, with `handle`.
 * `transfer` names the buffers of an answer to move to the parent rather than copy.
 */
export function serveRequests<Req, Res>(handle: (request: Req) => Promise<Res> | Res, transfer: (value: Res) => TransferListItem[] = () => []): void {
  const port = parentPort!;
  let queue: Promise<void> = Promise.resolve();
  port.on('message', (message: Request<Req>) => {
    queue = queue.then(async () => {
      if ('close' in message) {
        port.close();
        return;
      }
      try {
        const value = await handle(message.request);
        port.postMessage({ id: message.id, value } satisfies Reply<Res>, transfer(value));
      } catch (error) {
        port.postMessage({ id: message.id, error: errorData(error) } satisfies Reply<Res>);
      }
    });
  });
}
