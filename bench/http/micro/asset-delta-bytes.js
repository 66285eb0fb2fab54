'use strict';
// Bytes of an asset delta (serveStatic / serve() / fastifyStatic / Hono serveStatic with
// `dictionary`) against the usual codings of the new file, for pairs of real package versions from
// node_modules, each version's JavaScript concatenated into one bundle as a bundler would (sorted
// paths, unminified: no minifier is installed here). The delta is made by the adapters' own
// decision and encoder (lib/compression/asset-delta.js), at the option's default level.
// Usage: node bench/http/micro/asset-delta-bytes.js   (prints a markdown table)
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const root = path.join(__dirname, '..', '..', '..');
const { AssetDictionaries } = require(path.join(root, 'lib', 'compression', 'asset-dictionaries'));
const { assetDelta, encodeDeltaAsync } = require(path.join(root, 'lib', 'compression', 'asset-delta'));
const native = require(path.join(root, 'lib', 'native'));
const crypto = require('crypto');

const SKIP = /(?:^|\/)(?:node_modules|test|tests|types|docs|examples|benchmarks|integration)(?:\/|$)/;
const PAIRS = [
  ['express', 'express52', 'express53'],
  ['fastify', 'fastify4', 'fastify'],
];

function bundleOf(dir) {
  const base = path.join(root, 'node_modules', dir);
  const files = [];
  const walk = (rel) => {
    for (const entry of fs.readdirSync(path.join(base, rel), { withFileTypes: true })) {
      const name = path.posix.join(rel, entry.name);
      if (SKIP.test(name)) continue;
      if (entry.isDirectory()) walk(name);
      else if (entry.name.endsWith('.js')) files.push(name);
    }
  };
  walk('');
  files.sort();
  const version = require(path.join(base, 'package.json')).version;
  const parts = files.map((name) => `// ${name}\n${fs.readFileSync(path.join(base, name), 'utf8')}\n`);
  return { version, bytes: Buffer.from(parts.join('')) };
}

const brotli = (body, quality) =>
  zlib.brotliCompressSync(body, {
    params: { [zlib.constants.BROTLI_PARAM_QUALITY]: quality, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length },
  }).length;

async function main() {
  if (!require(path.join(root, 'lib', 'compression', 'dcz')).available) {
    console.log(JSON.stringify({ skipped: 'libzstd is not available' }));
    return;
  }
  console.log(
    '| pair (bundle) | new version | gzip -6 | br q4 | br q11 | dcz delta | delta vs br q4 | delta vs br q11 |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const [name, oldDir, newDir] of PAIRS) {
    const before = bundleOf(oldDir);
    const after = bundleOf(newDir);
    const assets = AssetDictionaries.from(true);
    const record = (bytes, file) => ({ path: `/srv/${file}`, body: bytes, etag: '"0-0"', encoding: undefined });
    assetDelta(assets, '/assets/main-0a1b2c3d.js', record(before.bytes, 'main-0a1b2c3d.js'), {});
    const headers = {
      'accept-encoding': 'gzip, br, zstd, dcz',
      'available-dictionary': `:${crypto.createHash('sha256').update(before.bytes).digest('base64')}:`,
    };
    const decision = assetDelta(assets, '/assets/main-4e5f6a7b.js', record(after.bytes, 'main-4e5f6a7b.js'), headers);
    const delta = await encodeDeltaAsync(decision.delta, after.bytes);
    const decoded = native.dczDecode(before.bytes, decision.delta.dictionary.hash, delta, 1 << 26);
    if (!decoded.equals(after.bytes)) throw new Error(`${name}: the delta does not decode to the new bundle`);
    const gzip = zlib.gzipSync(after.bytes).length;
    const br4 = brotli(after.bytes, 4);
    const br11 = brotli(after.bytes, 11);
    const ratio = (x) => `${(delta.length / x).toFixed(2)}x`;
    console.log(
      `| ${name} ${before.version} -> ${after.version} | ${after.bytes.length.toLocaleString('en')} | ` +
        `${gzip.toLocaleString('en')} | ${br4.toLocaleString('en')} | ${br11.toLocaleString('en')} | ` +
        `**${delta.length.toLocaleString('en')}** | ${ratio(br4)} | ${ratio(br11)} |`,
    );
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
