/**
 * The service's rules for changing explicit project members, as pure functions: writes need an
 * administrator, nobody changes their own level, and nobody grants or edits above their own.
 */

/** Project levels an explicit membership can hold: 1 member, 8 administrator. */
export const MEMBER_LEVELS: readonly number[] = [1, 8];
export const ADMIN_LEVEL = 8;

export const NOT_ENOUGH_PERMISSION = "You don't have sufficient permissions in the project.";

export interface MemberChange {
  requesterUserId: number;
  /** The requester's effective level in the project (15 for an organization owner). */
  requesterLevel: number;
  targetUserId: number;
  /** The target's current explicit level. */
  targetLevel: number;
  newLevel: number | undefined;
}

/** Why the requester may not write members at all (403), or undefined. Leaving is always allowed. */
export function writeRefusal(method: 'PATCH' | 'DELETE', requesterLevel: number, removingSelf: boolean): string | undefined {
  if (method === 'DELETE' && removingSelf) return undefined;
  return requesterLevel >= ADMIN_LEVEL ? undefined : NOT_ENOUGH_PERMISSION;
}

/** Why this level change is refused (403), or undefined; checked in the service's order. */
export function levelChangeRefusal(change: MemberChange): string | undefined {
  if (change.newLevel !== undefined && change.newLevel > change.requesterLevel) {
    return 'You can only set access level to lower or equal to your current one.';
  }
  if (change.targetUserId === change.requesterUserId) {
    return change.newLevel !== undefined ? "You can't set your own access level." : undefined;
  }
  if (change.targetLevel > change.requesterLevel) return 'You can only edit others with level lower or equal to you.';
  return undefined;
}

/** The level from a PATCH body: absent, a valid level, or the invalid input to name in a 400. */
export function parseLevel(body: Record<string, unknown>): { level: number | undefined } | { invalid: string } {
  if (!('level' in body) || body.level === undefined) return { level: undefined };
  const value = body.level;
  if (typeof value === 'number' && MEMBER_LEVELS.includes(value)) return { level: value };
  if (typeof value === 'string' && /^\d+$/.test(value) && MEMBER_LEVELS.includes(Number(value))) return { level: Number(value) };
  return { invalid: String(value) };
}
