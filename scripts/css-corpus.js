'use strict';
// The real-sheet corpus folder of the critical-CSS checks (angular-processor-check.js,
// paint-check.js): the sheets of angular-processor-check-sheets.js installed at their pinned
// versions under the OS temp directory, and the Tailwind builds written beside them.
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

// The real stylesheets the critical-CSS check adds to its corpus, at their pinned versions, and
// the Tailwind builds (scripts/angular-processor-check-tailwind.js), written once after the
// install; the stamp holds their class list too, so a changed list builds them again.
function prepareCssCorpus() {
  const { REAL_SHEETS } = require('./angular-processor-check-sheets');
  const { TAILWIND_SHEETS, CANDIDATES } = require('./angular-processor-check-tailwind');
  const dir = path.join(os.tmpdir(), 'ssr-native-css-corpus');
  const wanted = [...Object.keys(REAL_SHEETS), ...TAILWIND_SHEETS.flatMap((sheet) => sheet.packages)];
  const stamp = path.join(dir, 'installed.json');
  const stamped = JSON.stringify({ wanted, tailwind: CANDIDATES });
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === stamped) return dir;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'css-corpus', private: true }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', ...wanted], {
    cwd: dir,
    stdio: 'inherit',
  });
  // a child process: the builds are async, this script is not
  execFileSync(process.execPath, [path.join(__dirname, 'angular-processor-check-tailwind.js'), dir], {
    stdio: 'inherit',
  });
  fs.writeFileSync(stamp, stamped);
  return dir;
}

// The installed packages' sheets, then the Tailwind builds written beside them: [{ name, css }].
function realSheets(folder) {
  if (!folder) return [];
  const { REAL_SHEETS } = require('./angular-processor-check-sheets');
  const { TAILWIND_SHEETS } = require('./angular-processor-check-tailwind');
  const installed = Object.entries(REAL_SHEETS).map(([spec, file]) => {
    const name = spec.slice(0, spec.lastIndexOf('@'));
    return { name: `${name}/${file}`, css: fs.readFileSync(path.join(folder, 'node_modules', name, file), 'utf8') };
  });
  const built = TAILWIND_SHEETS.map(({ file, packages }) => ({
    name: `${file} (${packages[0]})`,
    css: fs.readFileSync(path.join(folder, file), 'utf8'),
  }));
  return [...installed, ...built];
}

module.exports = { prepareCssCorpus, realSheets };
