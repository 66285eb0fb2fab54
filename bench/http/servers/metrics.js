'use strict';
// Express 5 serving a 4 KB file through ssr-native's serveStatic (from memory) and, with
// METRICS=1, ssr-native/metrics registered on prom-client with a /metrics route.
const fs = require('fs');
const os = require('os');
const path = require('path');
const express = require('express');
const serveStatic = require('../../../lib/express/serve-static.js');
const { listen } = require('../lib/server');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-bench-metrics-'));
fs.writeFileSync(path.join(dir, 'app.css'), 'x'.repeat(4096));
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));

const app = express();
app.use(serveStatic(dir));
if (process.env.METRICS === '1') {
  const client = require('prom-client');
  require('../../../lib/metrics').registerMetrics(client);
  require('../../../lib/argon2'); // its pool is a source too, as in an app that hashes
  app.get('/metrics', async (req, res) => res.type(client.register.contentType).send(await client.register.metrics()));
}
listen(require('http').createServer(app));
