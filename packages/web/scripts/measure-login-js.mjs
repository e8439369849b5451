#!/usr/bin/env node
// Gzipped JavaScript the browser downloads for /react/login, read from the Vite manifest of a
// build (packages/web/dist): the entry with its static imports, plus the lazily loaded sign-in
// page with its static imports. Prints JSON: { files, totalBytes, totalGzipBytes }.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const dist = process.argv[2] ?? fileURLToPath(new URL('../dist', import.meta.url));
const manifest = JSON.parse(readFileSync(path.join(dist, '.vite', 'manifest.json'), 'utf8'));
const roots = ['index.html', 'src/features/auth/routes/login.tsx'];

const files = new Set();
const visit = (key) => {
  const chunk = manifest[key];
  if (!chunk) throw new Error(`${key} is not in the manifest`);
  if (files.has(chunk.file)) return;
  files.add(chunk.file);
  for (const imported of chunk.imports ?? []) visit(imported);
};
roots.forEach(visit);

const rows = [...files]
  .filter((file) => file.endsWith('.js'))
  .map((file) => {
    const content = readFileSync(path.join(dist, file));
    return { file, bytes: content.length, gzipBytes: gzipSync(content, { level: 9 }).length };
  })
  .sort((a, b) => b.gzipBytes - a.gzipBytes);
const totalBytes = rows.reduce((sum, row) => sum + row.bytes, 0);
const totalGzipBytes = rows.reduce((sum, row) => sum + row.gzipBytes, 0);
console.log(JSON.stringify({ files: rows, totalBytes, totalGzipBytes, totalGzipKB: +(totalGzipBytes / 1024).toFixed(1) }, null, 2));
