// Flat config: typescript-eslint's recommended rules over every workspace's sources and tests.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/src/gen/**', '.data/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        performance: 'readonly',
        URL: 'readonly',
        structuredClone: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    // Libraries are what services are built from, never the other way round: a package that
    // imported a service would drag the service's process, database and config into every user
    // of the package (the console into the browser). What composes services (the one-process
    // platform) is an application and lives in apps/.
    files: ['packages/**/*.{ts,tsx,js,mjs,cjs}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^@mp/(gateway|identity|projects|monitoring-data|reports|webhooks)(/|$)',
              message: 'packages/ may not import a service; move what both need into a package.',
            },
            { regex: '(^|/)services/', message: 'packages/ may not import a service; move what both need into a package.' },
          ],
        },
      ],
    },
  },
);
