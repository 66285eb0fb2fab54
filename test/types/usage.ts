// Compiled (not run) by test/js/package/package.test.js: every entry point's declarations, as a user
// would import them from CommonJS TypeScript.
import fs = require('fs');
import ssr = require('ssr-native');
import koa = require('ssr-native/koa');

const tag: string = ssr.etag('body');
ssr.etag(Buffer.from('x'), 'utf8');
ssr.etag('x', { weak: false, encoding: 'latin1' });
ssr.etag(new Uint16Array(4));
ssr.etag(new DataView(new ArrayBuffer(8)));
ssr.etag(fs.statSync('.'));
ssr.etag(fs.statSync('.', { bigint: true }));
const crc: number = ssr.crc32('x', 0);

const middleware: koa.KoaMiddleware = koa.etag({ weak: true });
koa.conditional();
const files: koa.KoaServeMiddleware = koa.serve('public', {
  maxage: 60000,
  immutable: true,
  extensions: ['html'],
  defer: false,
  compress: true,
  acceptRanges: true,
  setHeaders: (res, path, stats) => res.setHeader('X-Size', String(stats.size) + path),
});
files.stats().bytes;
files.close();
// @ts-expect-error koa-send's extensions are an array
koa.serve('public', { extensions: 'html' });

// @ts-expect-error numbers are not entities
ssr.etag(42);
// @ts-expect-error weak must be a boolean
ssr.etag('x', { weak: 'yes' });

export { tag, crc, middleware };
