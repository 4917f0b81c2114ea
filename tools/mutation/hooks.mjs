// Module resolution hook of the in-process mutation runner: `node:test` resolves to the recording shim.
const SHIM = new URL('./node-test-shim.mjs', import.meta.url).href;
export async function resolve(specifier, context, next) {
  if (specifier === 'node:test') return { url: SHIM, shortCircuit: true, format: 'module' };
  return next(specifier, context);
}
