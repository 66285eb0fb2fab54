'use strict';
// Express 5.3 serving a site of server-rendered pages that share a layout and ~20 KB of inlined
// critical CSS (test/js/helpers/dictionary-site.js), each page public (Cache-Control: public,
// max-age=60). /page/<n> is page n; every number is a page no one asked for before.
// COMPRESSION: peer (compression 1.8.2) | ours (ssr-native compression, no dictionary) |
// dictionary (ssr-native compression({ dictionary: true })).
const path = require('path');
const express = require(path.join(__dirname, '..', '..', '..', 'node_modules', 'express53'));
const { listen } = require('../lib/server');
const { createSite } = require('../../../test/js/helpers/dictionary-site');

const mode = process.env.COMPRESSION || 'peer';
const site = createSite({ seed: 2026 });
const app = express();
app.set('etag', false);
if (mode === 'peer') app.use(require('compression')());
else if (mode === 'ours') app.use(require('../../../lib/express/compression')());
else app.use(require('../../../lib/express/compression')({ dictionary: true }));
app.get('/page/:n', (req, res) => {
  res.set('Cache-Control', 'public, max-age=60');
  res.type('html').send(site.page(Number(req.params.n)));
});
listen(require('http').createServer(app));
