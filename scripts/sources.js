'use strict';
// Lists the C++ sources for binding.gyp, so the addon and CMake (which globs the same folder)
// always build the same core. SIMD paths live in their own files (crc32_avx512.cc, ...) but are
// compiled with the portable flags: each SIMD function carries a target attribute and is only
// called after a run-time CPU check. Per-file -m flags would let the compiler emit AVX-512 in
// inline helpers that the linker may then pick for the portable path as well.
//   node scripts/sources.js core   -> src/core/*.cc
//   node scripts/sources.js addon  -> src/addon/*.cc
const fs = require('fs');
const path = require('path');

function listSources(folder) {
  const dir = path.join(__dirname, '..', 'src', folder);
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.cc'))
    .sort()
    .map((f) => `src/${folder}/${f}`);
}

if (require.main === module) {
  const folder = process.argv[2];
  if (folder !== 'core' && folder !== 'addon') {
    process.stderr.write('usage: node scripts/sources.js core|addon\n');
    process.exit(2);
  }
  process.stdout.write(listSources(folder).join('\n') + '\n');
}

module.exports = { listSources };
