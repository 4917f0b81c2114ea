// ESLint flat config: type-aware typescript-eslint rules on src/, a lighter set on test/, bench/ and tools/.
// `npm run lint`; see docs/quality.md ("Lint").
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

// node:test's test()/describe()/it() return promises the runner awaits itself.
const nodeTestCalls = [
  {
    from: 'package',
    package: 'node:test',
    name: ['test', 'it', 'describe', 'suite', 'before', 'after', 'beforeEach', 'afterEach'],
  },
];

const unusedVars = [
  'error',
  {
    args: 'after-used',
    argsIgnorePattern: '^_',
    varsIgnorePattern: '^_',
    caughtErrors: 'none',
    ignoreRestSiblings: true,
  },
];

export default defineConfig(
  // The client's types and the database's are generated (npm run client:generate, npm run db:types) and checked by
  // their staleness tests, not linted.
  {
    ignores: [
      'node_modules/',
      'data/',
      'bench/out/',
      'test-artifacts/',
      '.tmp/',
      'snapshot/',
      'test/fixtures/',
      'clients/typescript/schema.ts',
      'clients/typescript/dist/',
      'src/store/db-schema.ts',
      'src/store/db-schema/',
    ],
  },
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
  },

  // Kysely's values come from src/store/kysely.ts (its CommonJS build: one copy of the library, loaded without the
  // tsx hooks' cost per module); types may be imported from 'kysely' itself.
  {
    files: ['**/*.ts', '**/*.tsx'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'kysely',
              allowTypeImports: true,
              message: "import Kysely's values from src/store/kysely.ts (its CommonJS build)",
            },
          ],
        },
      ],
    },
  },

  // src/ and the client package: the full type-aware set.
  {
    files: ['src/**/*.ts', 'src/**/*.tsx', 'clients/**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    rules: {
      '@typescript-eslint/no-unused-vars': unusedVars,
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
      '@typescript-eslint/prefer-promise-reject-errors': 'error',
      '@typescript-eslint/return-await': ['error', 'in-try-catch'],
      // Fastify plugins and handlers are async by contract (the returned promise signals completion), and
      // interface implementations may be async without awaiting: the rule flags the idiom, not defects.
      '@typescript-eslint/require-await': 'off',
      // The escaped joiners in our character classes (\u200d, \ufeff) strip code points one by one, on purpose.
      'no-misleading-character-class': ['error', { allowEscape: true }],
    },
  },

  // test/, bench/, tools/: promise handling and the cheap syntactic rules; unsafe-any is tolerated.
  {
    files: ['test/**/*.ts', 'test/**/*.tsx', 'bench/**/*.ts', 'tools/**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    rules: {
      '@typescript-eslint/no-floating-promises': ['error', { allowForKnownSafeCalls: nodeTestCalls }],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': unusedVars,
      // Tests and benchmarks read JSON response bodies as `any` to assert on them field by field.
      '@typescript-eslint/no-explicit-any': 'off',
      'no-misleading-character-class': ['error', { allowEscape: true }],
    },
  },

  // Plain JavaScript entry points (bin/, test/run.mjs, this file): syntax rules only, Node globals.
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [js.configs.recommended],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
      },
    },
  },
);
