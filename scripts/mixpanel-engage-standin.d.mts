/** Types for mixpanel-engage-standin.mjs, so tests written in TypeScript can serve Mixpanel's Engage API. */
export interface MixpanelProfile {
  $distinct_id: string;
  $properties: Record<string, unknown>;
}

export interface RealAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface EngageOptions {
  projectId: string;
  users: MixpanelProfile[];
  /** Group profiles by data_group_id. */
  groups?: Record<string, MixpanelProfile[]>;
  pageSize?: number;
  /** The stand-in's clock (the test's), for the hourly limit. */
  nowMs?: () => number;
  /** Called with the pages served so far, once a page's answer is made (a test ends a session or a run there). */
  onPage?: (served: readonly string[]) => void;
}

export interface EngageStandin {
  form: { path: string; key(form: Record<string, string>): string; answer(form: Record<string, string>): RealAnswer };
  /** Ends every open session: the next page asked of one is refused. */
  endSessions(): void;
  /** Pages answered, as `<data_group_id or users>:<page>`, in order. */
  pagesServed: string[];
}

export function jsonAnswer(status: number, value: unknown): RealAnswer;
export function engageStandin(options: EngageOptions): EngageStandin;
export function startMixpanelDemo(options: {
  projectId: string;
  username: string;
  secret: string;
  events: Array<{ event: string; properties: Record<string, unknown> & { time: number } }>;
  users: MixpanelProfile[];
  groups?: Record<string, MixpanelProfile[]>;
}): Promise<{ url: string; close(): Promise<void> }>;
