'use strict';
// `npm run test:js`: node --test over every *.test.js at any depth under test/js (test/js/helpers
// holds no suites). Node 20's --test takes no globs and, given a directory, would also run every
// .js file under a folder named test; so the files are listed here.
//   node scripts/test-js.js [node --test options...] [files or folders under test/js...]
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const root = path.join(__dirname, '..');

/** Every *.test.js under `dir` (repo-relative), at any depth, sorted; helpers/ is skipped. */
function testFiles(dir) {
  const out = [];
  const walk = (rel) => {
    for (const entry of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const child = path.join(rel, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'helpers') walk(child);
      } else if (entry.name.endsWith('.test.js')) {
        out.push(child);
      }
    }
  };
  walk(dir);
  return out.sort();
}

if (require.main === module) {
  // Arguments naming a file or folder are what to run; the rest (in order, so an option's value
  // may follow it: --test-name-pattern x) go to node --test.
  const args = process.argv.slice(2);
  const isPath = (arg) => !arg.startsWith('-') && fs.existsSync(path.join(root, arg));
  const options = args.filter((arg) => !isPath(arg));
  const named = args.filter(isPath);
  const files = named.length
    ? named.flatMap((arg) => (fs.statSync(path.join(root, arg)).isDirectory() ? testFiles(arg) : [arg]))
    : testFiles(path.join('test', 'js'));
  const r = spawnSync(process.execPath, ['--test', ...options, ...files], { cwd: root, stdio: 'inherit' });
  process.exitCode = r.status === null ? 1 : r.status;
}

module.exports = { testFiles };
