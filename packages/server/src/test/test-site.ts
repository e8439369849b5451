import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small website on 127.0.0.1 for tests, e2e specs and benchmarks: pages with navigation,
 * scripts and footers around their main text, a robots.txt, links to another host, and a
 * redirect. Routes can be added or replaced.
 */
export type Route = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export const page = (title: string, body: string, links: string[] = []) => `<!doctype html>
<html><head><title>${title}</title><meta charset="utf-8"><script>window.tracking = "SCRIPT-NOISE";</script><style>.x{color:red}</style></head>
<body>
<header><div class="logo">Harbour Museum</div></header>
<nav><ul>${links.map((l) => `<li><a href="${l}">Menu ${l}</a></li>`).join('')}<li><a href="https://elsewhere.example/">Partner site</a></li></ul></nav>
<main><article><h1>${title}</h1>${body}</article></main>
<aside>NAVIGATION-NOISE Related links and adverts</aside>
<footer>FOOTER-NOISE Copyright Harbour Museum. All rights reserved.</footer>
</body></html>`;

const para = (s: string) => `<p>${s}</p>`;

export const SITE_PAGES: Record<string, { title: string; body: string; links: string[] }> = {
  '/': {
    title: 'Harbour Museum',
    body: para('Welcome to the Harbour Museum, home of the old lighthouse lens and the fishing fleet archive. The museum opens every day except Monday, from ten in the morning until five in the afternoon.'),
    links: ['/lighthouse', '/fleet', '/visit', '/private/staff', '/files/map.pdf', '#top'],
  },
  '/lighthouse': {
    title: 'The Old Lighthouse',
    body:
      para('The lighthouse was built in 1854 from granite quarried on the island. Its first-order Fresnel lens could be seen twenty-two nautical miles out to sea.') +
      '<h2>The keepers</h2>' +
      para('Three keepers lived at the station and took turns to trim the wicks through the night. The last keeper, Agnes Morrow, left in 1962 when the light was automated.'),
    links: ['/', '/fleet'],
  },
  '/fleet': {
    title: 'The Fishing Fleet',
    body: para('At its height in 1910 the harbour sheltered one hundred and forty herring drifters. The fleet declined after the herring stocks collapsed in the 1950s.'),
    links: ['/', '/lighthouse', '/visit'],
  },
  '/visit': {
    title: 'Plan Your Visit',
    body: para('Tickets cost eight pounds for adults and are free for children under twelve. The café on the quay serves crab sandwiches and hot chowder.'),
    links: ['/'],
  },
  '/private/staff': { title: 'Staff Only', body: para('Staff rota and alarm codes.'), links: [] },
};

export interface TestSite {
  url: string;
  port: number;
  routes: Map<string, Route>;
  hits: string[];
  close(): Promise<void>;
}

export async function startTestSite(): Promise<TestSite> {
  const routes = new Map<string, Route>();
  const hits: string[] = [];
  for (const [path, p] of Object.entries(SITE_PAGES)) {
    routes.set(path, (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(page(p.title, p.body, p.links));
    });
  }
  routes.set('/robots.txt', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('User-agent: *\nDisallow: /private/\n');
  });
  routes.set('/old-lighthouse', (_req, res) => {
    res.writeHead(301, { location: '/lighthouse' });
    res.end();
  });
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    hits.push(path);
    const route = routes.get(path);
    if (route) return route(req, res);
    res.writeHead(404, { 'content-type': 'text/html' });
    res.end('<h1>Not found</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    routes,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
