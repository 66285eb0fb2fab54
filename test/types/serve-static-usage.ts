// Compile-only: how TypeScript users call serveStatic and FileCache.
import http = require('http');
import { serveStatic, FileCache } from 'ssr-native';
import serveStaticDefault = require('ssr-native/serve-static');

// Express-like: app.use(mw)
const app = { use: (..._args: unknown[]) => undefined };
const mw = serveStatic('public', {
  maxAge: '1y',
  immutable: true,
  index: false,
  redirect: false,
  extensions: ['html'],
  dotfiles: 'deny',
  compress: true,
  maxBytes: 32 * 1024 * 1024,
  setHeaders(res, path, stat) {
    res.setHeader('X-Size', String(stat.size) + path + stat.mtime.toUTCString());
  },
});
app.use(mw);
app.use('/assets', serveStaticDefault.serveStatic('assets'));
const stats = mw.stats();
const hits: number = stats.hits + stats.misses + stats.entries + stats.bytes + stats.evictions;
http.createServer((req, res) => mw(req, res)).close();
const cache = new FileCache({ root: 'public', maxBytes: 1 << 20 });
cache.get('/abs/path').then((r) => (r.body ? r.body.length + hits : 0));
mw.close();
