/** A string as a HogQL literal: quoted, backslashes and quotes escaped, so no value becomes query text. Pure. */
export function printHogQLString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
