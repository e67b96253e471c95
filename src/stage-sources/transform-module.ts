/**
 * Loads a --transform module: once per thread (the main one and each worker), by its file URL,
 * which carries the SHA-256 of the content the run recorded so that a module changed between
 * two runs in one process is not taken from the cache. Its default export must be a plain
 * function: called once per row, an async one would make every row wait on the event loop, so
 * it is refused when the module is loaded, before any row is read.
 */
import { UsageError } from '../errors.js';
import type { RowTransform, TransformSpec } from '../events/row-steps.js';

const loaded = new Map<string, Promise<RowTransform>>();

const CONTRACT = 'export default function (event) { ... return event; } (see docs/transforms.md)';

function loadError(error: unknown): string {
  const err = error as { name?: string; message?: string; code?: string };
  if (err.code === 'ERR_MODULE_NOT_FOUND' || err.code === 'ENOENT') return `cannot be found (${err.message ?? ''})`;
  return `cannot be loaded: ${err.name ?? 'Error'}: ${err.message ?? String(error)}`;
}

/**
 * The module's import, or a UsageError once nothing is left that could settle it: a top-level
 * await on something that never comes leaves the process with nothing to do, and Node would
 * end it silently with code 13 ('beforeExit' is emitted first, and rejecting here lets the run
 * end with the error in words instead).
 */
function importOrStall(spec: TransformSpec): Promise<{ default?: unknown }> {
  return new Promise((resolve, reject) => {
    const stalled = (): void =>
      reject(
        new UsageError(`--transform ${spec.name}: the module never finished loading: a top-level await in it waits on something that never comes`, [
          'Make every top-level await of the module settle (a read of a file, a fetch with a timeout), or read what it needs without one.',
        ]),
      );
    process.once('beforeExit', stalled);
    (import(spec.url) as Promise<{ default?: unknown }>).then(resolve, reject).finally(() => process.off('beforeExit', stalled));
  });
}

async function importTransform(spec: TransformSpec): Promise<RowTransform> {
  let module: { default?: unknown };
  try {
    module = await importOrStall(spec);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`--transform ${spec.name}: ${loadError(error)}`, ['A transform is an ES module (.mjs, or .js in a package of "type": "module") whose default export is ' + CONTRACT]);
  }
  const fn = module.default;
  if (typeof fn !== 'function') throw new UsageError(`--transform ${spec.name}: its default export is ${fn === undefined ? 'missing' : `a ${typeof fn}`}, not a function`, [`Write ${CONTRACT}.`]);
  const kind = (fn as { constructor?: { name?: string } }).constructor?.name;
  if (kind === 'AsyncFunction' || kind === 'AsyncGeneratorFunction' || kind === 'GeneratorFunction') {
    throw new UsageError(`--transform ${spec.name}: its default export is ${kind === 'AsyncFunction' ? 'an async' : 'a generator'} function; it must return each row's result directly`, [
      'It runs once per row, on the threads that read the rows: awaiting there would make every row wait. Read what it needs when the module loads (top-level await works there).',
    ]);
  }
  return { name: spec.name, fn: fn as RowTransform['fn'] };
}

/** The transform of `spec` (undefined for none), loaded once per thread; a UsageError when it cannot be used. */
export function loadTransform(spec: TransformSpec | undefined): Promise<RowTransform | undefined> {
  if (spec === undefined) return Promise.resolve(undefined);
  let module = loaded.get(spec.url);
  if (module === undefined) {
    module = importTransform(spec);
    loaded.set(spec.url, module);
  }
  return module;
}
