/** The real wait, for production defaults; tests inject their own instead. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
