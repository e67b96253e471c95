/**
 * Parses a command line with the real program, without running anything: every command's
 * action is replaced by a capture of what commander hands it (arguments, options, command).
 */
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/program.js';

export interface Parsed {
  /** The positional arguments, as the command's argument parsers left them. */
  args: unknown[];
  options: Record<string, unknown>;
  command: Command;
}

function allCommands(command: Command): Command[] {
  return [command, ...command.commands.flatMap(allCommands)];
}

export async function parseArgv(args: string[]): Promise<Parsed> {
  const argv = ['node', 'migrate', ...args];
  const program = await buildProgram(argv);
  let parsed: Parsed | undefined;
  for (const command of allCommands(program)) {
    command.configureOutput({ writeOut: () => {}, writeErr: () => {} });
    if (command.commands.length > 0) continue;
    command.action((...received: unknown[]) => {
      const cmd = received.at(-1) as Command;
      parsed = { args: received.slice(0, -2), options: received.at(-2) as Record<string, unknown>, command: cmd };
    });
  }
  await program.parseAsync(argv);
  if (parsed === undefined) throw new Error(`no command ran for ${args.join(' ')}`);
  return parsed;
}
