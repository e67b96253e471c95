/** Types for bench-args.mjs, so tests written in TypeScript can call it. */
export const STEPS: string[];
export const FORMATS: string[];
export const DEFAULT_EVENTS: number;
export const DEFAULT_PEER_EVENTS: number;
export const USAGE: string;
export interface BenchOptions {
  events: number;
  peerEvents: number;
  steps: string[];
  formats: string[];
  baselineEvents: number | null;
  keep: boolean;
  out: string | null;
}
export function parseCount(text: string): number | undefined;
export function parseBenchArgs(argv: readonly string[]): { options: BenchOptions } | { help: true } | { error: string };
