'use strict';
// Express 5 serving a 75 KB server-rendered page (a string, as SSR renderers return it).
// ETAG_MODE: default (Express's weak SHA-1), off, zlib (a zlib.crc32-based JS function),
// ssr-native (this package's etag), constant (a function returning a fixed tag: everything an
// ETag costs Express except computing it).
const express = require('express');
const zlib = require('zlib');
const { etag } = require('../../..');
const native = require('../../../lib/native');
const { listen } = require('../lib/server');
const { renderPage } = require('../lib/page');

function zlibEtag(body) {
  const buf = Buffer.isBuffer(body) ? body : Buffer.from(body);
  return `W/"${buf.length.toString(16)}-${zlib.crc32(buf).toString(16).padStart(8, '0')}"`;
}

const constantEtag = () => 'W/"12c00-0badc0de"';

function forcedPathEtag(crcPath) {
  return (body) => {
    const buf = Buffer.isBuffer(body) ? body : Buffer.from(body);
    return `W/"${buf.length.toString(16)}-${native.crc32WithPath(crcPath, buf).toString(16).padStart(8, '0')}"`;
  };
}

const modes = { default: 'weak', off: false, zlib: zlibEtag, 'ssr-native': etag, constant: constantEtag };
const mode = process.env.ETAG_MODE || 'default';
if (mode.startsWith('ssr-native-')) modes[mode] = forcedPathEtag(mode.slice('ssr-native-'.length));
if (!(mode in modes)) throw new Error(`unknown ETAG_MODE ${mode}`);

const app = express();
app.set('etag', modes[mode]);
const page = renderPage(Number(process.env.PAGE_BYTES || 75 * 1024));
app.get('/', (req, res) => {
  res.type('html').send(page);
});
listen(app.listen ? require('http').createServer(app) : app);
