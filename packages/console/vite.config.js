import { defineConfig } from 'vite';

// Preact through esbuild's automatic JSX runtime (no Babel preset); served by the gateway at
// /console, so every URL in the built index.html starts there. No module-preload polyfill: it
// would be an inline script, which the console's Content-Security-Policy refuses.
export default defineConfig({
  base: '/console/',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
  },
});
