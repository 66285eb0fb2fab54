'use strict';
// `npm run test:js`: node --test over every *.test.js at any depth under test/js (test/js/helpers
// holds no suites). Node 20's --test takes no globs and, given a directory, would also run every
// .js file under a folder named test; so the files are listed here.
//   node scripts/test-js.js [node --test options...] [files or folders under test/js...]
const { spawn } = require('child_process');
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

/**
 * The failing tests of a TAP stream: each `not ok` line that is not a TODO or SKIP, with the YAML
 * block under it (its error and stack), at most BLOCK_LINES lines each. A long run's log is often
 * read from its tail only (CI keeps the last part of it): the run repeats these at its end.
 */
class FailureLog {
  constructor() {
    this.blocks = [];
    this.current = null;
    this.partial = '';
  }

  add(chunk) {
    const lines = (this.partial + chunk).split('\n');
    this.partial = lines.pop();
    for (const line of lines) this.line(line);
  }

  end() {
    if (this.partial) this.line(this.partial);
    this.partial = '';
    this.current = null;
  }

  line(line) {
    const status = /^\s*(not ok|ok) \d+/.exec(line);
    if (status) {
      this.current = null;
      if (status[1] === 'not ok' && !/#\s*(TODO|SKIP)\b/i.test(line)) {
        this.current = [line];
        this.blocks.push(this.current);
      }
    } else if (this.current) {
      if (this.current.length < BLOCK_LINES) this.current.push(line);
      if (line.trim() === '...') this.current = null; // the end of its YAML block
    }
  }
}
const BLOCK_LINES = 40;

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
  const child = spawn(process.execPath, ['--test', ...options, ...files], {
    cwd: root,
    stdio: ['inherit', 'pipe', 'inherit'],
  });
  const failures = new FailureLog();
  child.stdout.on('data', (chunk) => {
    process.stdout.write(chunk);
    failures.add(chunk);
  });
  child.on('close', (status) => {
    failures.end();
    if (failures.blocks.length) {
      console.log(`\ntest-js: ${failures.blocks.length} failing test(s), repeated from above:`);
      for (const block of failures.blocks) console.log(block.join('\n'));
    }
    process.exitCode = status === null ? 1 : status;
  });
}

module.exports = { testFiles, FailureLog };
