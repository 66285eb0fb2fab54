'use strict';
// Two versions of a hashed bundle for the asset-delta tests: 120 seeded modules, and the next
// deploy's bundle with two of them changed (what a delta against the first should carry).
const { mulberry32 } = require('./seeded-random');

function assetBundles(seed = 0x5eed) {
  const random = mulberry32(seed);
  const modules = Array.from({ length: 120 }, (_, i) => {
    const names = Array.from({ length: 6 }, () => `v${Math.floor(random() * 1e6).toString(36)}`);
    return `function module${i}(${names.join(', ')}) {\n  return [${names.join(' + ')}, "${names[0]}-${i}"];\n}\n`;
  });
  const v1 = modules.join('');
  modules[7] = 'function module7() { return "changed in v2"; }\n';
  modules[80] = modules[80].replace('return', 'return /* v2 */');
  return { v1: Buffer.from(v1), v2: Buffer.from(modules.join('')) };
}

module.exports = { assetBundles };
