'use strict';
// The one check a static middleware makes of its root when it is created: a root that does not
// exist or is not a folder (a wrong dist path, Angular's browserDistFolder computed from the wrong
// place) otherwise makes every asset a silent 404. The peers neither throw nor say anything, and
// neither does the middleware's behaviour change (a folder made later is served): one process
// warning per root names it.
const fs = require('fs');

const warned = new Set();

/** Warns once per resolved `root` that is not an existing folder; `where` names the middleware. */
function warnIfRootMissing(root, where) {
  if (warned.has(root)) return;
  let what;
  try {
    if (fs.statSync(root).isDirectory()) return;
    what = 'is not a folder';
  } catch (err) {
    what = err.code === 'ENOENT' || err.code === 'ENOTDIR' ? 'does not exist' : `cannot be read (${err.code})`;
  }
  warned.add(root);
  process.emitWarning(
    `${where}: the root ${root} ${what}, so every request under it falls through (404). ` +
      "Is it the built browser folder? (Angular: browserDistFolder = resolve(serverDistFolder, '../browser'))",
    { code: 'SSR_NATIVE_STATIC_ROOT_MISSING' },
  );
}

module.exports = { warnIfRootMissing };
