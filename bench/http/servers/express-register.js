'use strict';
// One unmodified Express 5.3 app, as `npm install express` gives it today: a JSON API route, a
// 75 KB server-rendered page sent with res.send, and express.static files. It knows nothing of
// ssr-native: scenarios/express-register.js runs it plain and with `-r ssr-native/register`
// (through NODE_OPTIONS).
const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');
const express = require('express53');
const { listen } = require('../lib/server');
const { renderPage } = require('../lib/page');

// Static files: a 1 KB script and a 16 KB stylesheet (deterministic text).
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ssr-native-bench-register-'));
const line = '.card { display: grid; grid-template-columns: 1fr 2fr; gap: 4px } /* padding */\n';
fs.writeFileSync(path.join(root, 'main.js'), 'export const x = 1; // padding\n'.repeat(34).slice(0, 1024));
fs.writeFileSync(path.join(root, 'styles.css'), line.repeat(Math.ceil(16384 / line.length)).slice(0, 16384));
process.on('exit', () => fs.rmSync(root, { recursive: true, force: true }));

const items = Array.from({ length: 20 }, (_, i) => ({
  id: i,
  name: `Product ${i}`,
  price: ((i * 31) % 997) / 10,
  tags: ['a', 'b'],
}));
const page = renderPage(75 * 1024);

const app = express();
app.use(express.static(root));
app.get('/api/items', (req, res) => res.json({ items }));
app.get('/page', (req, res) => res.send(page));
listen(http.createServer(app));
