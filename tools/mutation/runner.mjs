// StrykerJS test-runner plugin "node-test-inproc" (docs/quality.md, "Mutation testing"): runs the node:test unit
// tests of src/domain inside the Stryker worker, loading the instrumented modules ONCE and switching the active mutant
// between runs (Stryker's mutant switching), with per-test coverage so that a mutant runs only the tests that
// execute it, stopping at the first failure. A mutant then costs milliseconds instead of a node + tsx start and the
// fixture loading of whole test files (15–40 s per mutant with the command runner on the shared machine).
//
// Correctness notes:
// - `node:test` is replaced by a recording shim (node-test-shim.mjs) through a resolve hook (hooks.mjs).
// - Mutants in code that runs while the modules load ("static" mutants: tables, regular expressions, constants) cannot
//   be switched at run time; the runner declares reloadEnvironment: false, so Stryker gives each of them a fresh
//   worker, which loads the modules with that mutant active. Stryker would run every test for them (coverage cannot
//   say which test reads a table). The runner narrows that to the tests that execute any code of the mutated file
//   (from the dry run's per-test coverage, saved to COVERAGE_FILE in the sandbox), fastest first, stopping at the
//   first failure, and loads only their test files. A test that never runs code of the file can still read an
//   exported constant of it directly, so a static mutant can be reported surviving that a full run would kill:
//   the score is a lower bound, never inflated (a kill is always a test that passed without the mutant).
// - Values memoised across tests (module-level caches) are filled during the dry run, with no mutant active; a
//   mutant in code reached only through such a cache then survives (never a false kill). See docs/quality.md.
import { register } from 'node:module';
import { performance } from 'node:perf_hooks';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { declareClassPlugin, PluginKind, tokens, commonTokens } from '@stryker-mutator/api/plugin';
import { DryRunStatus, MutantRunStatus, TestStatus, determineHitLimitReached } from '@stryker-mutator/api/test-runner';
import { selectUnitTests } from './select.mjs';

const NS = '__stryker__';
const COVERAGE_FILE = '.mutation-dry-run-coverage.json';

/** Mutant ids placed in an instrumented file. */
function mutantIdsOf(sandboxFileName) {
  return new Set(
    [
      ...readFileSync(sandboxFileName, 'utf8').matchAll(/stry(?:MutAct|Cov)_9fa48\(("\d+"(?:\s*,\s*"\d+")*)\)/g),
    ].flatMap((m) => m[1].match(/\d+/g)),
  );
}

class NodeTestInProcessRunner {
  static inject = tokens(commonTokens.logger);
  loaded = false;
  tests = [];
  /** Dry-run time of each test: a mutant's tests run fastest first (with bail, a kill comes sooner). */
  spent = new Map();

  constructor(logger) {
    this.log = logger;
  }

  capabilities() {
    return { reloadEnvironment: false };
  }

  async init() {
    process.env.FC_SEED ??= '42';
    process.env.MUTATION_MEMO = '1'; // test/helpers/feeds.ts parses each fixture once
    const { register: registerTsx } = await import('tsx/esm/api');
    registerTsx();
    register('./hooks.mjs', import.meta.url);
    globalThis[NS] ??= {};
  }

  async load(only) {
    if (this.loaded) return;
    this.loaded = true;
    await import(pathToFileURL(path.resolve('test/helpers/fc-setup.ts')).href);
    // The domain's memo tables (src/domain/memo.ts) are emptied before every test: a value memoised by an earlier
    // test, or in the dry run without the mutant, would hide the mutant (and its coverage) from the tests that follow.
    const memo = path.resolve('src/domain/memo.ts');
    if (existsSync(memo)) this.clearMemos = (await import(pathToFileURL(memo).href)).clearMemos;
    const registry = (globalThis.__nodeTestShim ??= { file: '', tests: [], prefix: [] });
    const files = selectUnitTests(process.env.MUTATION_TARGET).filter((f) => !only || only.has(f));
    for (const f of files) {
      registry.file = f;
      await import(pathToFileURL(path.resolve(f)).href);
    }
    this.tests = registry.tests;
    if (this.spent.size === 0 && existsSync(COVERAGE_FILE)) {
      this.spent = new Map(JSON.parse(readFileSync(COVERAGE_FILE, 'utf8')).tests.map((t) => [t.id, t.timeSpentMs]));
    }
    this.log.info(`node-test-inproc: ${this.tests.length} tests from ${files.length} files`);
  }

  /** Runs the tests in order; with bail, stops at the first failure. */
  async runTests(tests, bail, perTest) {
    const results = [];
    for (const t of tests) {
      this.clearMemos?.();
      const start = performance.now();
      if (perTest) globalThis[NS].currentTestId = t.id;
      let failureMessage;
      try {
        await t.fn();
      } catch (e) {
        failureMessage = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
      } finally {
        if (perTest) globalThis[NS].currentTestId = undefined;
      }
      const timeSpentMs = performance.now() - start;
      results.push(
        failureMessage === undefined
          ? { id: t.id, name: t.name, fileName: t.fileName, status: TestStatus.Success, timeSpentMs }
          : { id: t.id, name: t.name, fileName: t.fileName, status: TestStatus.Failed, failureMessage, timeSpentMs },
      );
      if (failureMessage !== undefined && bail) break;
    }
    return results;
  }

  async dryRun(options) {
    globalThis[NS].activeMutant = undefined;
    globalThis[NS].mutantCoverage = { static: {}, perTest: {} };
    await this.load();
    const perTest = options.coverageAnalysis === 'perTest';
    const tests = await this.runTests(this.tests, false, perTest);
    this.spent = new Map(tests.map((t) => [t.id, t.timeSpentMs]));
    if (perTest) {
      const perTestCov = globalThis[NS].mutantCoverage.perTest;
      writeFileSync(
        COVERAGE_FILE,
        JSON.stringify({
          tests: tests.map((t) => ({ id: t.id, fileName: t.fileName, timeSpentMs: t.timeSpentMs })),
          covers: Object.fromEntries(Object.entries(perTestCov).map(([id, c]) => [id, Object.keys(c)])),
        }),
      );
    }
    const failed = tests.filter((t) => t.status === TestStatus.Failed);
    if (failed.length > 0)
      this.log.error(
        `node-test-inproc: dry run failures: ${failed.map((t) => `${t.name}: ${t.failureMessage}`).join('\n')}`,
      );
    return {
      status: DryRunStatus.Complete,
      tests,
      mutantCoverage: options.coverageAnalysis === 'off' ? undefined : globalThis[NS].mutantCoverage,
    };
  }

  /** For a static mutant: the tests that run code of its file, fastest first, then the other tests of the test files
   *  whose imports reach the file (one that reads an exported table directly), fastest first; undefined = no dry-run
   *  data (run everything). */
  staticTestPlan(options) {
    if (!existsSync(COVERAGE_FILE)) return undefined;
    const { tests, covers } = JSON.parse(readFileSync(COVERAGE_FILE, 'utf8'));
    const ids = mutantIdsOf(options.sandboxFileName);
    const fast = (a, b) => a.timeSpentMs - b.timeSpentMs;
    const covering = tests.filter((t) => (covers[t.id] ?? []).some((m) => ids.has(m))).sort(fast);
    const importing = new Set(selectUnitTests(path.relative(process.cwd(), options.sandboxFileName)));
    const chosen = new Set(covering.map((t) => t.id));
    return [...covering, ...tests.filter((t) => !chosen.has(t.id) && importing.has(t.fileName)).sort(fast)];
  }

  async mutantRun(options) {
    const ns = globalThis[NS];
    let order;
    if (options.mutantActivation === 'static' && !this.loaded && !options.testFilter) {
      order = this.staticTestPlan(options);
      ns.activeMutant = options.activeMutant.id;
      await this.load(order ? new Set(order.map((t) => t.fileName)) : undefined);
    } else {
      if (options.mutantActivation === 'static') ns.activeMutant = options.activeMutant.id;
      await this.load();
    }
    ns.activeMutant = options.activeMutant.id;
    ns.hitLimit = options.hitLimit;
    ns.hitCount = options.hitLimit === undefined ? undefined : 0;
    const filter = options.testFilter ? new Set(options.testFilter) : undefined;
    const byId = new Map(this.tests.map((t) => [t.id, t]));
    const tests = filter
      ? this.tests
          .filter((t) => filter.has(t.id))
          .sort((a, b) => (this.spent.get(a.id) ?? 0) - (this.spent.get(b.id) ?? 0))
      : order
        ? order.map((t) => byId.get(t.id)).filter((t) => t !== undefined)
        : this.tests;
    try {
      const results = await this.runTests(tests, !options.disableBail, false);
      const timeout = determineHitLimitReached(ns.hitCount, ns.hitLimit);
      if (timeout) return timeout;
      const failed = results.filter((t) => t.status === TestStatus.Failed);
      if (failed.length > 0) {
        return {
          status: MutantRunStatus.Killed,
          failureMessage: failed[0].failureMessage,
          killedBy: failed.map((t) => t.id),
          nrOfTests: results.length,
        };
      }
      return { status: MutantRunStatus.Survived, nrOfTests: results.length };
    } finally {
      ns.activeMutant = undefined;
      ns.hitCount = undefined;
      ns.hitLimit = undefined;
    }
  }
}

export const strykerPlugins = [declareClassPlugin(PluginKind.TestRunner, 'node-test-inproc', NodeTestInProcessRunner)];
