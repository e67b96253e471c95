/**
 * V8 flags the CLI's main thread runs with. Only a flag given when Node starts sizes a heap, so
 * bin/migrate.js starts Node again, in the same process (process.execve), with the flags below
 * when they are missing. What a user gave Node (on the command line or in NODE_OPTIONS) wins.
 */

/**
 * Each semi-space of the young generation, in MB (the young generation holds two). The flag is
 * V8's, so it sizes every thread of the process (the workers' own resourceLimits do not lower
 * it). Node 24 and 22 let the semi-spaces grow to 64 MB each on a machine with a few GB of
 * memory: 128 MB of resident memory for objects that live a few milliseconds (measured on a
 * Mixpanel export, 128 MB of new space beside 61 MB of old space); 8 MB took about 100 MB off
 * at the same CPU per row. 2 MB takes off about 50 MB more where a thread makes buffers faster
 * than JavaScript objects (import's reading thread makes over a megabyte of buffers per chunk):
 * V8 frees a dead buffer when a collection finds it, a scavenge comes after each semi-space of
 * objects, and otherwise only after 64 MB more of buffers, so with larger semi-spaces each
 * thread kept up to 64 MB of dead buffers. It bounds no data: what outlives a collection
 * moves to the old generation, whose limit stays V8's own, so no input the CLI accepts can run
 * it out of heap.
 */
export const MAIN_SEMI_SPACE_MB = 2;

const FLAGS: ReadonlyArray<{ name: string; value: string }> = [{ name: '--max-semi-space-size', value: String(MAIN_SEMI_SPACE_MB) }];

/** True when `args` (Node's own arguments) set `name`, as `--name=value`, `--name value`, or with underscores. */
function setsFlag(args: readonly string[], name: string): boolean {
  const wanted = name.replaceAll('_', '-');
  return args.some((arg) => {
    const flag = arg.split('=', 1)[0]!.replaceAll('_', '-');
    return flag === wanted;
  });
}

/** NODE_OPTIONS as words: Node splits it on spaces (quotes aside, which no V8 flag needs). */
function nodeOptionWords(nodeOptions: string | undefined): string[] {
  return (nodeOptions ?? '').split(/\s+/).filter((word) => word !== '');
}

/** The flags of FLAGS that neither Node's arguments nor NODE_OPTIONS set, as `--name=value`. */
export function missingMainThreadFlags(execArgv: readonly string[], nodeOptions: string | undefined): string[] {
  const given = [...execArgv, ...nodeOptionWords(nodeOptions)];
  return FLAGS.filter((flag) => !setsFlag(given, flag.name)).map((flag) => `${flag.name}=${flag.value}`);
}

/**
 * The argv (argv[0] the program) to start `script` again with the missing flags, or undefined
 * when none is missing: Node's own arguments and the script's are kept, in order.
 */
export function restartArgv(execPath: string, execArgv: readonly string[], script: string, scriptArgs: readonly string[], nodeOptions: string | undefined): string[] | undefined {
  const missing = missingMainThreadFlags(execArgv, nodeOptions);
  if (missing.length === 0) return undefined;
  return [execPath, ...missing, ...execArgv, script, ...scriptArgs];
}
