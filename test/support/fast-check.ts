/**
 * Settings of the property tests. FC_NUM_RUNS raises (or lowers) the number of generated cases of
 * every property; FC_SEED replays a reported failure (with FC_PATH to go straight to the shrunk
 * case). fast-check's failure report, which jest prints as the assertion's message, names both.
 */
export function fcParams(defaultRuns: number): { numRuns: number; seed?: number; path?: string; endOnFailure?: boolean } {
  const runs = Number(process.env.FC_NUM_RUNS ?? defaultRuns);
  if (!Number.isSafeInteger(runs) || runs < 1) throw new Error(`FC_NUM_RUNS must be a positive integer, got ${process.env.FC_NUM_RUNS}`);
  const params: { numRuns: number; seed?: number; path?: string } = { numRuns: runs };
  if (process.env.FC_SEED !== undefined) params.seed = Number(process.env.FC_SEED);
  if (process.env.FC_PATH !== undefined) params.path = process.env.FC_PATH;
  return params;
}
