import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The server serves dist/web at `/`; in development Vite proxies the API to a running Baton.
export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist/web', emptyOutDir: true, chunkSizeWarningLimit: 2000 },
  server: {
    proxy: {
      '/api': process.env.BATON_URL ?? 'http://127.0.0.1:8080',
      '/health': process.env.BATON_URL ?? 'http://127.0.0.1:8080',
    },
  },
});
