'use strict';
// Every exported factory reads its option names through lib/options.js: walks the exports of every
// package entry (package.json `exports`, the require side) and passes each function that takes
// options one unknown name. ssr-native's own factories throw a TypeError with code
// ERR_SSR_NATIVE_UNKNOWN_OPTION naming it; drop-ins emit exactly one SSR_NATIVE_UNKNOWN_OPTION
// warning naming it and still work. An export found in neither table fails the test, so a new
// factory cannot go unchecked by omission.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const Fastify = require('fastify');

const root = path.join(__dirname, '..', '..', '..');
const pkg = require(path.join(root, 'package.json'));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-factory-options-'));
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));

// A Fastify plugin registered with `options`, the app made ready and closed.
async function registered(plugin, options) {
  const app = Fastify();
  try {
    app.register(plugin, options);
    await app.ready();
  } finally {
    await app.close();
  }
}

function realReqRes() {
  const req = new http.IncomingMessage(new net.Socket());
  req.method = 'GET';
  req.headers = {};
  return { req, res: new http.ServerResponse(req) };
}

const page = { browserDistFolder: dir, warm: false };

// entry -> export name -> (extra) => the call with the valid options plus `extra`.
// Own: ssr-native's own options, an unknown name is a TypeError.
const OWN = {
  '.': { FileCache: (x) => new (require(path.join(root, 'lib/index.js')).FileCache)({ ...x }) },
  './koa': {
    cache: (x) => require(path.join(root, 'lib/koa')).cache({ ...x }),
    criticalCss: (x) => require(path.join(root, 'lib/koa')).criticalCss({ ...page, ...x }),
  },
  './fastify': {
    fastifyCriticalCss: (x) =>
      registered(require(path.join(root, 'lib/fastify')).fastifyCriticalCss, { ...page, ...x }),
    criticalCss: (x) => registered(require(path.join(root, 'lib/fastify')).criticalCss, { ...page, ...x }),
  },
  './hono': { criticalCss: (x) => require(path.join(root, 'lib/hono')).criticalCss({ ...page, ...x }) },
  './serve-static': { FileCache: (x) => new (require(path.join(root, 'lib/express/serve-static.js')).FileCache)(x) },
  './content-type': { configure: (x) => require(path.join(root, 'lib/content-type')).configure({ ...x }) },
  './content-type/v2': { configure: (x) => require(path.join(root, 'lib/content-type/v2.js')).configure({ ...x }) },
  './argon2': { configure: (x) => require(path.join(root, 'lib/argon2')).configure({ ...x }) },
  './angular': {
    cacheCommonEngine: (x) => require(path.join(root, 'lib/angular')).cacheCommonEngine({}, { ...x }),
    writeResponse: (x) => {
      const { req, res } = realReqRes();
      return require(path.join(root, 'lib/angular')).writeResponse(new Response('x'), req, res, { ...x });
    },
    criticalCss: (x) => require(path.join(root, 'lib/angular')).criticalCss({ ...page, ...x }),
  },
  './metrics': {
    registerMetrics: (x) => require(path.join(root, 'lib/metrics')).registerMetrics(require('prom-client'), { ...x }),
  },
  './cache': {
    responseCache: (x) => require(path.join(root, 'lib/express/cache')).responseCache({ ...x }),
    CacheEngine: (x) => new (require(path.join(root, 'lib/express/cache')).CacheEngine)({ ...x }),
    sharedMemoryStore: (x) =>
      require(path.join(root, 'lib/express/cache')).sharedMemoryStore({ name: 'factory-options', ...x }),
  },
  './critical-css': {
    inlineCriticalCss: (x) =>
      require(path.join(root, 'lib/express/critical-css')).inlineCriticalCss('<p>x</p>', { ...page, ...x }),
    criticalCss: (x) => require(path.join(root, 'lib/express/critical-css')).criticalCss({ ...page, ...x }),
    CriticalCss: (x) => new (require(path.join(root, 'lib/express/critical-css')).CriticalCss)({ ...page, ...x }),
  },
  './compression': {
    ContentCache: (x) => new (require(path.join(root, 'lib/express/compression')).ContentCache)({ ...x }),
  },
};

// Peer: a drop-in's options, which the peer ignores: one warning, the call still works.
const PEER = {
  '.': { serveStatic: (x) => require(path.join(root, 'lib/index.js')).serveStatic(dir, { ...x }) },
  './koa': {
    etag: (x) => require(path.join(root, 'lib/koa')).etag({ ...x }),
    serve: (x) => require(path.join(root, 'lib/koa')).serve(dir, { ...x }),
    send: (x) =>
      require(path.join(root, 'lib/koa'))
        .send(null, null, { root: dir, ...x })
        .catch(() => {}),
    compress: (x) => require(path.join(root, 'lib/koa')).compress({ ...x }),
  },
  './fastify': {
    fastifyStatic: (x) => registered(require(path.join(root, 'lib/fastify')).fastifyStatic, { root: dir, ...x }),
    fastifyEtag: (x) => registered(require(path.join(root, 'lib/fastify')).fastifyEtag, { ...x }),
    fastifyCompress: (x) => registered(require(path.join(root, 'lib/fastify')).fastifyCompress, { ...x }),
  },
  './hono': {
    serveStatic: (x) => require(path.join(root, 'lib/hono')).serveStatic({ root: dir, ...x }),
    etag: (x) => require(path.join(root, 'lib/hono')).etag({ ...x }),
    compress: (x) => require(path.join(root, 'lib/hono')).compress({ ...x }),
  },
  './serve-static': {
    default: (x) => require(path.join(root, 'lib/express/serve-static.js'))(dir, { ...x }),
    serveStatic: (x) => require(path.join(root, 'lib/express/serve-static.js')).serveStatic(dir, { ...x }),
  },
  './argon2': {
    hash: (x) =>
      require(path.join(root, 'lib/argon2')).hash('pw', { memoryCost: 8, timeCost: 1, parallelism: 1, ...x }),
    verify: async (x) => {
      const argon2 = require(path.join(root, 'lib/argon2'));
      const digest = await argon2.hash('pw', { memoryCost: 8, timeCost: 1, parallelism: 1 });
      return argon2.verify(digest, 'pw', { ...x });
    },
    needsRehash: (x) =>
      require(path.join(root, 'lib/argon2')).needsRehash(
        '$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA',
        {
          ...x,
        },
      ),
  },
  './compression': {
    default: (x) => require(path.join(root, 'lib/express/compression'))({ ...x }),
    compression: (x) => require(path.join(root, 'lib/express/compression')).compression({ ...x }),
  },
};

// Exports that take no options object (or whose options are a per-call parser's, not a factory's).
const NO_OPTIONS = {
  '.': ['etag', 'crc32'], // etag(entity, options): one call per response, the etag package's
  './koa': ['conditional'],
  './content-type': ['parse', 'format', 'cacheStats', 'clearCache'],
  './content-type/v2': ['parse', 'format', 'isTypeValid', 'isTokenValid', 'cacheStats', 'clearCache'],
  './argon2': ['stats', 'SemaphoreFullError', 'expressErrorHandler', 'koaMiddleware'],
  './angular': ['ssgCacheOf'],
  './compression': ['filter', 'sharedCache', 'poolStats'],
};

// Every function an entry exports, by name ('default' for a module that is itself one).
function exportedFunctions(entry) {
  const target = pkg.exports[entry];
  if (typeof target !== 'object' || typeof target.require !== 'string') return [];
  const mod = require(path.join(root, target.require));
  const out = new Map();
  if (typeof mod === 'function') out.set('default', mod);
  for (const [name, value] of Object.entries(mod)) if (typeof value === 'function') out.set(name, value);
  return [...out.keys()];
}

const entries = Object.keys(pkg.exports).filter((entry) => entry !== './package.json');

test('every exported function is classified: own options, a peer’s options, or none', () => {
  for (const entry of entries) {
    for (const name of exportedFunctions(entry)) {
      const kinds = [OWN, PEER].filter((table) => table[entry]?.[name] !== undefined).length;
      const none = (NO_OPTIONS[entry] || []).includes(name) ? 1 : 0;
      assert.equal(kinds + none, 1, `${entry} ${name}: in ${kinds + none} of the tables (exactly one expected)`);
    }
  }
  for (const table of [OWN, PEER]) {
    for (const [entry, calls] of Object.entries(table)) {
      const names = exportedFunctions(entry);
      for (const name of Object.keys(calls)) assert.ok(names.includes(name), `${entry} ${name} is not exported`);
    }
  }
});

for (const [entry, calls] of Object.entries(OWN)) {
  for (const [name, call] of Object.entries(calls)) {
    test(`own: ${entry} ${name} refuses an unknown option name`, async () => {
      const unknown = `unknownOwn_${name}`;
      await assert.rejects(
        async () => call({ [unknown]: 1 }),
        (err) => {
          assert.ok(err instanceof TypeError, `${entry} ${name}: ${err}`);
          assert.equal(err.code, 'ERR_SSR_NATIVE_UNKNOWN_OPTION', `${entry} ${name}: ${err}`);
          assert.match(err.message, new RegExp(`"${unknown}"`));
          return true;
        },
      );
    });
  }
}

for (const [entry, calls] of Object.entries(PEER)) {
  for (const [name, call] of Object.entries(calls)) {
    test(`peer: ${entry} ${name} warns once about an unknown option name and still works`, async () => {
      const unknown = `unknownPeer_${entry.replace(/\W/g, '')}_${name}`;
      const seen = [];
      const listener = (w) => {
        if (w.code === 'SSR_NATIVE_UNKNOWN_OPTION' && w.message.includes(`"${unknown}"`)) seen.push(w.message);
      };
      process.on('warning', listener);
      try {
        await call({ [unknown]: 1 });
        await call({ [unknown]: 1 }); // the same mistake again says nothing more
        await new Promise((resolve) => setImmediate(resolve));
      } finally {
        process.off('warning', listener);
      }
      assert.equal(seen.length, 1, `${entry} ${name}: ${seen.length} warnings`);
    });
  }
}

test('inlinePrerendered (the ssr-native-critical-css command) refuses an unknown option name', async () => {
  const { inlinePrerendered } = require(path.join(root, 'lib/critical-css/prerender.js'));
  await assert.rejects(inlinePrerendered({ folder: dir, deployURL: '/' }), (err) => {
    assert.ok(err instanceof TypeError);
    assert.equal(err.code, 'ERR_SSR_NATIVE_UNKNOWN_OPTION');
    assert.match(err.message, /"deployURL" \(did you mean "deployUrl"\?\)/);
    return true;
  });
});
