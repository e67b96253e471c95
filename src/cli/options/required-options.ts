/**
 * Commander checks required options before it refuses unknown ones, so a mistyped `--projet x`
 * was reported as a missing `--project`. Here required options are checked after: in a hook
 * that runs once commander has refused any unknown option (with its "Did you mean" line).
 */
import type { Command, Option } from 'commander';

function commandsOf(command: Command): Command[] {
  return [command, ...command.commands.flatMap(commandsOf)];
}

/** Moves the check of every required option of `program`'s commands after the unknown-option check. */
export function checkRequiredAfterUnknown(program: Command): void {
  const required = new Map<Command, Option[]>();
  for (const command of commandsOf(program)) {
    const options = command.options.filter((option) => option.mandatory);
    for (const option of options) option.makeOptionMandatory(false);
    if (options.length > 0) required.set(command, options);
  }
  program.hook('preAction', (_program, actionCommand) => {
    for (const option of required.get(actionCommand) ?? []) {
      if (actionCommand.getOptionValue(option.attributeName()) === undefined) {
        actionCommand.error(`error: required option '${option.flags}' not specified`, { code: 'commander.missingMandatoryOptionValue', exitCode: 1 });
      }
    }
  });
}
