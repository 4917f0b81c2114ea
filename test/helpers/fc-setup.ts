// Loaded before every test file (test/run.mjs). With FC_SEED set (CI sets a fixed one), every property test runs
// the same generated inputs, so a CI result is reproducible; without it, each local run explores new inputs.
import fc from 'fast-check';

const seed = process.env.FC_SEED;
if (seed !== undefined && seed !== '') {
  if (!/^-?\d+$/.test(seed)) throw new Error(`FC_SEED must be an integer, got "${seed}"`);
  fc.configureGlobal({ seed: Number(seed) });
}
