// ssr-native/cache as a node:http server uses it: the middleware, its controls and its stats.
import http = require('http');
import { responseCache } from 'ssr-native/cache';
import type { ResponseCacheStats } from 'ssr-native/cache';

const pages = responseCache({
  maxBytes: 256 * 1024 * 1024,
  maxEntries: 50_000,
  query: 'sort',
  ignoreParams: ['utm_source'],
  cookies: (req) => req.url === '/',
  now: Date.now,
});
http.createServer((req, res) => pages(req, res, () => res.end('page'))).listen(0);
const dropped = [pages.purge('/'), pages.purgePrefix('/products/'), pages.purgeTag('catalog'), pages.clear()];
async function purged(): Promise<number> {
  return (await Promise.all(dropped)).reduce((a, b) => a + b, 0);
}
const stats: ResponseCacheStats = pages.stats();
const hits: number = stats.hits + stats.coalesced + stats.evictions + (stats.sharedHits ?? 0);
pages.close();
responseCache({ store: {}, storeOptions: { prefix: 'shop:', timeout: 100, retryAfter: 1000 } });
responseCache({ cacheStatus: true });
responseCache({ cacheStatus: { worker: true } });
// @ts-expect-error cacheStatus takes a boolean or { worker }
responseCache({ cacheStatus: 'on' });
// @ts-expect-error query takes 'keep', 'sort' or 'ignore'
responseCache({ query: 'shuffle' });
