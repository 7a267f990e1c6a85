// One lint setup for the whole repository: type-aware rules that catch async mistakes, the
// purity boundary of the interpreter (src/engine), and what each room may import, generated from
// the room map (scripts/rooms.mjs). Import cycles are checked by `npm run lint:cycles` on the
// compiled output and by `npm run lint:rooms` over the sources.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

import { restrictedImportBlocks } from './scripts/rooms.mjs';

// On Node 20's V8 an object literal that begins with a spread and then names a property the spread
// did not bring makes a hidden class per object, and `Object.assign` onto a literal turns a copy of
// more than sixteen fields into a dictionary (docs/PERFORMANCE.md, "Fixed: objects with a shape of
// their own on the hot path" and "Fixed: copies of large records in dictionary mode"). The rooms on
// a step's path write such copies with copyWith; a literal that begins with a field
// (`{ field, ...rest }`) or is one spread alone keeps one hidden class and fast properties.
const spreadThenProperty = {
  selector: 'ObjectExpression > SpreadElement:first-child + *',
  message:
    'a leading spread followed by a property gives every copy a hidden class of its own on this runtime: use copyWith(base, changes)',
};
const assignOntoLiteral = {
  selector:
    "CallExpression[callee.object.name='Object'][callee.property.name='assign'] > ObjectExpression.arguments:first-child",
  message:
    'Object.assign onto a literal makes a dictionary of a copy of more than sixteen fields on this runtime: use copyWith(base, changes)',
};

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      'data/**',
      'scripts/**',
      'packages/*/scripts/**',
      'packages/*/bin/**',
      'eslint.config.js',
      'bench/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/only-throw-error': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'max-lines': ['warn', { max: 450, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // The interpreter is pure: no clock, no randomness (its imports are in the room map).
    files: ['packages/server/src/engine/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: 'use ctx.now',
        },
        { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: 'use ctx.now' },
        {
          selector: "CallExpression[callee.object.name='Math'][callee.property.name='random']",
          message: 'use ctx.random',
        },
        spreadThenProperty,
        assignOntoLiteral,
      ],
    },
  },
  {
    // The rooms a step, a poll and a read go through (the interpreter's block above has it too).
    files: [
      'packages/server/src/{decisions,handout,operations,queue,store,store-postgres,store-sqlite,views}/**/*.ts',
      // And what a system task's call, its payloads and its trace go through on each step.
      'packages/server/src/{integrations/executor,payloads,tracing}/**/*.ts',
      'packages/server/src/http/{routes/**/*,error-handler,start-request-form}.ts',
      'packages/server/src/copy-with.ts',
    ],
    rules: { 'no-restricted-syntax': ['error', spreadThenProperty, assignOntoLiteral] },
  },
  // Each room imports only what the room map allows it (its `forbidden` libraries included).
  ...restrictedImportBlocks(),
  {
    // Tests read loosely typed response bodies; core code keeps the strict rules.
    files: ['**/test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: ['describe', 'it', 'test', 'suite', 'before', 'after'],
            },
          ],
        },
      ],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      'max-lines': 'off',
    },
  },
);
