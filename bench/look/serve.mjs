// A tiny static server for the look harness: the page (this folder), the repository's
// node_modules (three.js and three-vrm as ES modules, through the page's import map) and the
// committed catalogue (today's GLB personas). Listens on 127.0.0.1 only.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.glb': 'model/gltf-binary', '.json': 'application/json', '.png': 'image/png', '.svg': 'image/svg+xml' };
const MOUNTS = [
  ['/node_modules/', path.join(root, 'node_modules')],
  ['/catalog/', path.join(root, 'packages/server/catalog')],
  ['/', here],
];

export function startServer(port = 0) {
  const server = http.createServer((req, res) => {
    const url = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const [prefix, dir] = MOUNTS.find(([p]) => url.startsWith(p));
    const file = path.join(dir, url.slice(prefix.length) || 'index.html');
    if (!file.startsWith(dir) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const server = await startServer(Number(process.env.PORT ?? 5199));
  console.log(`look harness on http://127.0.0.1:${server.address().port}/`);
}
