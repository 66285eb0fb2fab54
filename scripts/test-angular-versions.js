'use strict';
// cacheCommonEngine against the real CommonEngine of each major: @angular/ssr 17 and 18
// (exported from '@angular/ssr'), 19 to 22 (from '@angular/ssr/node'; 21 is also the fixture
// app's); for 21 and 22, critical CSS against that version's own processor
// (scripts/angular-processor-check.js).
// Each major is installed with its peer packages into a folder under the OS temp directory (kept
// between runs while its versions do not change), then a child process, started in that folder,
// builds that version's CommonEngine over a prerendered file tree and checks hits, misses,
// invalidation and the error for an unknown shape (scripts/angular-version-check.js).
//   node scripts/test-angular-versions.js [major ...]
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { ensureRuntime } = require('./runtimes');
const { prepareCssCorpus } = require('./css-corpus');

// The newest @angular/ssr of each major, with the newest framework version that every @angular
// package of that major has in the registry (the latest patches differ from package to package,
// and the framework packages require each other at exactly one version). `runtime`: where the Node
// running this script is older than 22, the major is checked under that runtime from
// scripts/runtimes.js instead (Angular 22 needs Node ^22.22.3 || ^24.15 || >= 26).
const VERSIONS = {
  17: { ssr: '17.3.17', framework: '17.3.12' },
  18: { ssr: '18.2.21', framework: '18.2.14' },
  19: { ssr: '19.2.27', framework: '19.2.25' },
  20: { ssr: '20.3.37', framework: '20.3.32' },
  21: { ssr: '21.2.24', framework: '21.2.24' },
  22: { ssr: '22.2.0', framework: '22.2.0', runtime: 'node22' },
};
const MAJORS = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(VERSIONS);
const FRAMEWORK = ['core', 'common', 'compiler', 'platform-browser', 'platform-server', 'router', 'animations'];

function prepare(major) {
  const dir = path.join(os.tmpdir(), `ssr-native-angular-ssr-${major}`);
  const { ssr, framework } = VERSIONS[major];
  const wanted = [
    `@angular/ssr@${ssr}`,
    ...FRAMEWORK.map((p) => `@angular/${p}@${framework}`),
    'rxjs@7',
    'zone.js',
    'tslib@2',
  ];
  const stamp = path.join(dir, 'installed.json');
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === JSON.stringify(wanted)) return dir;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: `angular-ssr-${major}-check`, private: true }),
  );
  const start = Date.now();
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', ...wanted], {
    cwd: dir,
    stdio: 'inherit',
  });
  console.log(`angular ${major}: installed in ${((Date.now() - start) / 1000).toFixed(1)} s`);
  fs.writeFileSync(stamp, JSON.stringify(wanted));
  return dir;
}

let failed = 0;
let cssCorpus;
for (const major of MAJORS) {
  let dir;
  try {
    dir = prepare(major);
  } catch (err) {
    console.log(`angular ${major}: could not be installed (${err.message})`);
    failed++;
    continue;
  }
  try {
    const { runtime } = VERSIONS[major];
    const node =
      runtime && Number(process.versions.node.split('.')[0]) < 22 ? ensureRuntime(runtime) : process.execPath;
    execFileSync(node, [path.join(__dirname, 'angular-version-check.js'), major], { cwd: dir, stdio: 'inherit' });
    // the majors in active support: ours against that Angular's own critical-CSS processor
    if (Number(major) >= 21) {
      cssCorpus ??= prepareCssCorpus();
      execFileSync(node, [path.join(__dirname, 'angular-processor-check.js'), major, '40', cssCorpus], {
        cwd: dir,
        stdio: 'inherit',
      });
    }
  } catch (err) {
    if (err.status === undefined) console.log(`angular ${major}: ${err.message}`); // not the check's own failure
    failed++;
  }
}
if (failed) {
  console.log(`angular versions: ${failed} of ${MAJORS.length} failed`);
  process.exit(1);
}
console.log(`angular versions: ${MAJORS.join(', ')} pass`);
