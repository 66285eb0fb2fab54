'use strict';
// One process of a fleet for the cache-redis tests: Express 5 with responseCache() over a shared
// Redis (CACHE_CLIENT=ioredis | node-redis, REDIS_PORT, CACHE_PREFIX, CACHE_RETRY_AFTER). Prints READY <port>.
const express = require('express');
const { responseCache } = require('../../../lib/express/cache');
const { redisClient } = require('../../../bench/http/lib/redis');

(async () => {
  const cache = responseCache({
    store: await redisClient(process.env.CACHE_CLIENT, Number(process.env.REDIS_PORT)),
    storeOptions: {
      prefix: process.env.CACHE_PREFIX,
      timeout: 300,
      retryAfter: Number(process.env.CACHE_RETRY_AFTER || 300),
    },
  });
  const app = express();
  app.get('/purge', async (req, res) => res.json({ dropped: await cache.purge(String(req.query.url)) }));
  app.get('/purge-tag', async (req, res) => res.json({ dropped: await cache.purgeTag(String(req.query.tag)) }));
  app.get('/stats', (req, res) => res.json(cache.stats()));
  app.use(cache);
  let renders = 0;
  app.get('/page/:id', async (req, res) => {
    renders++;
    if (req.query.slow) await new Promise((resolve) => setTimeout(resolve, Number(req.query.slow)));
    res.set('Cache-Control', 'public, s-maxage=60').set('Cache-Tag', `page-${req.params.id}`);
    res.send(`page ${req.params.id} from ${process.pid} render ${renders}`);
  });
  const server = app.listen(0, '127.0.0.1', () => process.stdout.write(`READY ${server.address().port}\n`));
})();
