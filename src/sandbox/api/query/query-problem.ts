/**
 * Why a query was refused. The tokenizer, parser and translator throw it deep inside their
 * recursion; `compileHogQL` catches it at the boundary and hands it back as a value.
 */
export class QueryProblem extends Error {
  constructor(readonly detail: string) {
    super(detail);
    this.name = 'QueryProblem';
  }
}

/** The one wording for anything outside the subset, so clients meet a recognisable refusal. */
export function unsupported(what: string, hint?: string): QueryProblem {
  return new QueryProblem(`${what} is not supported by the sandbox's HogQL subset${hint === undefined ? '' : `: ${hint}`} (see docs/sandbox-api.md).`);
}
