// ESLint: typescript-eslint's strict set over src, test, bench and scripts.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'coverage/**', 'bench/out/**'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: {
      globals: {
        console: 'readonly',
        process: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        performance: 'readonly',
        fetch: 'readonly',
        URL: 'readonly',
        TextDecoder: 'readonly',
        TextEncoder: 'readonly',
        AbortController: 'readonly',
        structuredClone: 'readonly',
        queueMicrotask: 'readonly',
        SharedArrayBuffer: 'readonly',
        Atomics: 'readonly',
      },
    },
    rules: {
      // tsconfig has noUncheckedIndexedAccess: an index we have just bounds-checked is typed
      // `T | undefined`, and `!` is how the code says "checked above". The compiler, not this rule,
      // guards the rest.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Paths, NUL detection and binary sniffing match control characters on purpose.
      'no-control-regex': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // The web UI runs in browsers: its globals (window, document, sessionStorage…) are checked by
    // tsc (ui/tsconfig.json, lib DOM, run by npm run build), as typescript-eslint advises for TS.
    files: ['ui/**/*.ts', 'ui/**/*.tsx'],
    rules: { 'no-undef': 'off' },
  },
  {
    // A file does one thing and no function outgrows a screen: the GNU commands since issue 17
    // (options as tables of handlers, one parser per find primary, one handler per directive), and
    // the whole server since (a store family as small factories by job, a tool handler as its steps).
    // The generated client is one type per tool, as long as the registry is (scripts/gen-client.mjs
    // writes it).
    files: ['src/**/*.ts'],
    ignores: ['src/client/tools.generated.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
      'max-lines': ['error', { max: 500, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // Tests read envelopes of any shape from JSON; typing every response would hide nothing.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
