/**
 * The delivery flags of import and resume, made from the table of delivery options, and
 * reading back the ones the user typed (not commander's defaults), so resume can tell a
 * run's recorded options from those given now.
 */
import type { Command } from 'commander';
import { DELIVERY_OPTIONS, flagName, type DeliveryOption, type GivenSettings, type IntegerRow } from '../../delivery/delivery-options.js';
import { configOption, integerOption, jsonOption, quietOption, stagingOption } from './common-options.js';
import { misplacedGeoipOption } from './geoip-option.js';

function helpOf(option: DeliveryOption | IntegerRow<string>): string {
  if (option.kind === 'switch') return option.help;
  const shown = option.defaultText ?? (typeof option.default === 'number' ? String(option.default) : 'depends on the host');
  return `${option.help} (default ${shown})`;
}

/** The flags of a table of options (delivery's, the source APIs'), their help saying the default. */
export function tableFlags(command: Command, options: ReadonlyArray<DeliveryOption | IntegerRow<string>>): Command {
  for (const option of options) {
    if (option.kind === 'switch') command.option(option.flag, helpOf(option));
    else command.option(option.flag, helpOf(option), integerOption(flagName(option), option.min));
  }
  return command;
}

export function deliveryFlags(command: Command): Command {
  return tableFlags(command, DELIVERY_OPTIONS);
}

/** Every option import and resume share: delivery tuning, staging file, config, quiet, json. */
export function importRunOptions(command: Command): Command {
  deliveryFlags(command);
  misplacedGeoipOption(command);
  stagingOption(command);
  configOption(command);
  quietOption(command);
  return jsonOption(command);
}

/** The delivery options the user actually typed (not commander's defaults). */
export function givenSettings(command: Command): GivenSettings {
  const values = command.opts<Record<string, unknown>>();
  const given: Record<string, unknown> = {};
  for (const { key } of DELIVERY_OPTIONS) {
    if (command.getOptionValueSource(key) === 'cli') given[key] = values[key];
  }
  return given as GivenSettings;
}
