// Stands in for `node:test` inside the in-process mutation runner (runner.mjs): test() and describe() only record the
// tests, so the runner can run them again for every mutant without reloading the modules. The unit tests use only
// test(name, [options], fn) and describe(name, fn) (no subtests, hooks or mocks); anything else throws, so a test
// that starts using more fails loudly here instead of being skipped.
const registry = (globalThis.__nodeTestShim ??= { file: '', tests: [], prefix: [] });

function add(name, optionsOrFn, maybeFn) {
  const fn = typeof optionsOrFn === 'function' ? optionsOrFn : maybeFn;
  const options = typeof optionsOrFn === 'object' && optionsOrFn !== null ? optionsOrFn : {};
  if (typeof fn !== 'function') throw new Error(`node-test-shim: test "${name}" has no function`);
  if (fn.length > 0)
    throw new Error(`node-test-shim: test "${name}" takes a test context, which the shim does not provide`);
  if (options.skip || options.todo) return;
  const fullName = [...registry.prefix, name].join(' > ');
  registry.tests.push({ id: `${registry.file} > ${fullName}`, name: fullName, fileName: registry.file, fn });
}

export function test(name, optionsOrFn, maybeFn) {
  add(name, optionsOrFn, maybeFn);
}
/** node:test exports it as an alias of test. @alias */
export const it = test;

export function describe(name, fn) {
  registry.prefix.push(name);
  try {
    const r = fn();
    if (r && typeof r.then === 'function') throw new Error(`node-test-shim: describe "${name}" is async`);
  } finally {
    registry.prefix.pop();
  }
}

function unsupported(what) {
  return () => {
    throw new Error(`node-test-shim: ${what} is not supported by the in-process mutation runner`);
  };
}
export const before = unsupported('before()');
export const after = unsupported('after()');
export const beforeEach = unsupported('beforeEach()');
export const afterEach = unsupported('afterEach()');
export const mock = new Proxy({}, { get: (_t, p) => unsupported(`mock.${String(p)}`) });
/** node:test's default export is test too. @alias */
export default test;
