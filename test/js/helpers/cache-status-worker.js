'use strict';
// A node:cluster worker for cache-status.test.js: an Express app on an ephemeral port whose
// response cache says Cache-Status with the worker named; it sends its port to the primary.
const express = require('express');
const { responseCache } = require('../../../lib/express/cache');

const app = express();
app.use(responseCache({ cacheStatus: { worker: true } }));
app.get('/', (req, res) => {
  res.set('cache-control', 'public, max-age=60');
  res.send('page');
});
const server = app.listen(0, '127.0.0.1', () => process.send(server.address().port));
