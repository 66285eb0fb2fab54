'use strict';
// serveStatic(options): a drop-in for @hono/node-server 2.1's serveStatic (root, path, index,
// rewriteRequestPath, mimes, precompressed, onFound, onNotFound, allowPercentInPath) that answers
// from native memory through the shared static engine (lib/files/engine.js): no stat and no read
// stream per request, and the body is the cached Buffer itself (node-server writes a Uint8Array
// body with one res.end, no copy). Same path refusals, Content-Type (hono's mime table), sibling
// choice (br, zstd, gzip), Last-Modified, HEAD and Range handling as node-server's (the answer is
// lib/files/answer.js's 'node-server' flavour).
const { peerOptions } = require('../options');
const path = require('path');
const { FileCache } = require('../files/file-cache');
const { StaticEngine } = require('../files/engine');
const { lastModifiedOf } = require('../files/file-stats');
const { fileRangeStream, openFileForStream } = require('../files/file-stream');
const { Readable } = require('stream');
const { tagOf } = require('./tags');
const { decodeUriLenient } = require('../files/paths');
const { WHOLE } = require('../files/answer');
const { respond } = require('../files/respond');
const { routeKey } = require('../files/route-memo');
const { AssetDictionaries } = require('../compression/asset-dictionaries');
const { sendAsset } = require('./asset-delta');

const COMPRESSIBLE =
  /^\s*(?:text\/[^;\s]+|application\/(?:javascript|json|xml|xml-dtd|ecmascript|dart|postscript|rtf|tar|toml|vnd\.dart|vnd\.ms-fontobject|vnd\.ms-opentype|wasm|x-httpd-php|x-javascript|x-ns-proxy-autoconfig|x-sh|x-tar|x-virtualbox-hdd|x-virtualbox-ova|x-virtualbox-ovf|x-virtualbox-vbox|x-virtualbox-vdi|x-virtualbox-vhd|x-virtualbox-vmdk|x-www-form-urlencoded)|font\/(?:otf|ttf)|image\/(?:bmp|vnd\.adobe\.photoshop|vnd\.microsoft\.icon|vnd\.ms-dds|x-icon|x-ms-bmp)|message\/rfc822|model\/gltf-binary|x-shader\/x-fragment|x-shader\/x-vertex|[^;\s]+?\+(?:json|text|xml|yaml))(?:[;\s]|$)/i;
const ENCODINGS = [
  ['br', '.br'],
  ['zstd', '.zst'],
  ['gzip', '.gz'],
];
const UNSAFE_PATH = /(?:^|[/\\])\.{1,2}(?:$|[/\\])|[/\\]{2,}|\\/;
// files/respond.js's steps: node-server's answer has no options, reads no response, and its
// Vary is appended after its headers (answer below)
const NODE_SERVER = { options: undefined };

// Hono's own mime table (so Content-Type matches hono's serveStatic), from the app's hono: loaded
// when a middleware is made, not when ssr-native/hono is required, so the entry loads without it.
function honoMimeLookup() {
  try {
    return require('hono/utils/mime').getMimeType;
  } catch (cause) {
    const err = new Error("ssr-native/hono serveStatic needs the 'hono' package (npm install hono)", { cause });
    err.code = 'ERR_SSR_NATIVE_PEER_MISSING';
    throw err;
  }
}

// @hono/node-server's serveStatic options, then ssr-native's; it ignores other names, so they
// draw one warning (lib/options.js)
const SERVE_STATIC_OPTIONS = [
  ...['root', 'path', 'index', 'precompressed', 'mimes', 'rewriteRequestPath', 'onFound', 'onNotFound'],
  ...['allowPercentInPath', 'cache', 'dictionary', 'maxBytes', 'maxFileSize'],
];

function serveStatic(options = { root: '' }) {
  peerOptions(options, SERVE_STATIC_OPTIONS, 'serveStatic(options)');
  const getMimeType = honoMimeLookup();
  const root = options.root || '';
  const optionPath = options.path;
  const mimes = options.mimes;
  if (root !== '' && !require('fs').existsSync(root))
    console.error(`serveStatic: root path '${root}' is not found, are you sure it's correct?`);
  const cache =
    options.cache instanceof FileCache
      ? options.cache
      : new FileCache({ root: path.resolve(root), maxBytes: options.maxBytes, maxFileSize: options.maxFileSize });
  const engine = new StaticEngine(cache, { top: path.resolve(root) });
  // the answer depends on the URL path (and Accept-Encoding) alone unless rewriteRequestPath decides
  const rememberable = typeof options.rewriteRequestPath !== 'function';
  const assets = AssetDictionaries.from(options.dictionary, 'hono');

  async function stat(filePath) {
    let result = engine.get(filePath);
    if (result.status !== 'hit') result = await result;
    return result.status === 'error' || result.status === 'outsideRoot' ? undefined : result;
  }

  return async function serveStaticMiddleware(c, next) {
    if (c.finalized) return next();
    const method = c.req.method;
    if (method !== 'GET' && method !== 'HEAD') return next();
    const reqPath = c.req.path;
    const accept = options.precompressed ? c.req.header('Accept-Encoding') : undefined;
    const key = rememberable ? routeKey(reqPath, accept) : undefined;
    const remembered = key === undefined ? undefined : engine.routes.get(key);
    if (remembered !== undefined) return answer(c, remembered, method);

    let filename;
    if (optionPath) filename = optionPath;
    else {
      filename = decodeUriLenient(reqPath);
      if (
        (reqPath.includes('%') && (!options.allowPercentInPath || filename !== reqPath.replace(/%25/g, '%'))) ||
        UNSAFE_PATH.test(filename)
      ) {
        await options.onNotFound?.(reqPath, c);
        return next();
      }
    }
    const generation = engine.generation();
    let filePath = path.join(
      root,
      !optionPath && options.rewriteRequestPath ? options.rewriteRequestPath(filename, c) : filename,
    );
    let found = await stat(filePath);
    if (found && found.status === 'directory') {
      filePath = path.join(filePath, options.index ?? 'index.html');
      found = await stat(filePath);
    }
    if (!found) {
      await options.onNotFound?.(filePath, c);
      return next();
    }
    // `mimes` as hono's own serveStatic reads it (its entries first); node-server 2.1.9 ignores it
    const type = (mimes && getMimeType(filePath, mimes)) || getMimeType(filePath) || 'application/octet-stream';
    let encoding;
    if (options.precompressed && (type === 'application/octet-stream' || COMPRESSIBLE.test(type))) {
      const accepted = new Set(accept?.split(',').map((e) => e.trim()));
      for (const [name, ext] of ENCODINGS) {
        if (!accepted.has(name)) continue;
        const sibling = await stat(filePath + ext);
        if (sibling) {
          encoding = name;
          found = sibling;
          filePath += ext;
          break;
        }
      }
    }
    const record = found.body !== undefined ? engine.record(filePath, found, type, encoding, false) : undefined;
    if (record !== undefined && key !== undefined && found.cached) engine.routes.set(key, 0, record, generation);
    return answer(c, record || { path: filePath, type, encoding, file: found, body: undefined }, method);
  };

  async function answer(c, record, method) {
    if (assets !== null) {
      // `dictionary`: a hashed file offered, a dcz delta (lib/hono/asset-delta.js)
      c.header('Content-Type', record.type);
      const delta = await sendAsset(c, record, method, assets);
      if (delta !== undefined) {
        await options.onFound?.(record.path, c);
        return delta;
      }
    }
    // a file past maxFileSize: its size and date from the stat of its load
    const file = record.body !== undefined ? record : streamedFile(record);
    const request = { method, headers: { range: c.req.header('range') } };
    const a = respond('node-server', request, undefined, record, NODE_SERVER, file);
    const { headers, body } = a;
    for (const name in headers) c.header(name, headers[name]);
    if (record.encoding !== undefined) c.header('Vary', 'Accept-Encoding', { append: true });
    let result;
    if (method === 'HEAD') {
      c.status(200);
      result = c.body(null);
    } else if (a.status === 416) {
      result = c.body(null, 416);
    } else if (a.span === WHOLE) {
      result = c.body(body !== undefined ? body : await streamOf(record.path, 0, file.size - 1), 200);
      if (body !== undefined) tagOf.set(result, record.etag);
    } else {
      result = c.body(body !== undefined ? body : await streamOf(record.path, a.span.start, a.span.end), 206);
    }
    await options.onFound?.(record.path, c);
    return result;
  }
}

// the answer's file for a file streamed from disk
function streamedFile(record) {
  const stat = record.file.stat;
  return { size: stat.size, lastModified: lastModifiedOf(stat), type: record.type, encoding: record.encoding };
}

// past maxFileSize: a web stream over the descriptor opened now
function streamOf(filePath, start, end) {
  return new Promise((resolve, reject) => {
    openFileForStream(filePath, (err, fd) => {
      if (err) return reject(err);
      resolve(Readable.toWeb(fileRangeStream(fd, { start, end })));
    });
  });
}

module.exports = { serveStatic };
