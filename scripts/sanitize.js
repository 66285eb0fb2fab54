'use strict';
// Sanitized builds of the addon, and JS test files run against them under the stock Node binary.
//
//   node scripts/sanitize.js build asan|tsan
//   node scripts/sanitize.js test asan|tsan test/js/a.test.js [more files...] [-- node args]
//   node scripts/sanitize.js run asan|tsan script.js [args...]
//
// The recipe (CONTRIBUTING.md, "Sanitized runs", says why each piece is there):
// - build: the gyp sources (binding.gyp, src/, include/, scripts/sources.js) are copied into
//   build-sanitize/<kind>/ and node-gyp builds there with the sanitizer flags in CFLAGS, CXXFLAGS
//   and LDFLAGS, so build/Release and binding.gyp's defaults are untouched. The result is
//   build-sanitize/<kind>/build/Release/ssr_native.node.
//     asan: -fsanitize=address,undefined -fno-sanitize-recover=undefined (any UB aborts)
//     tsan: -fsanitize=thread
// - test/run: lib/native.js loads the binary named by SSR_NATIVE_ADDON (and nothing else), Node
//   gets the sanitizer runtime through LD_PRELOAD (node itself is not instrumented: the runtime
//   must be loaded before libc's malloc is used, which only a preload achieves), and the options:
//     ASAN_OPTIONS=detect_leaks=0 (V8 and Node keep process-lifetime allocations that LeakSanitizer
//       reports at exit), verify_asan_link_order=0 (tolerates the preload order node -r gives),
//       abort_on_error=1 (a report ends the process with SIGABRT, which node --test reports as a
//       failed file), handle_segv=1 (a SIGSEGV prints where it happened and who freed the memory),
//       allocator_may_return_null=1 (a huge malloc returns NULL as libc's does: the argon2
//       tests check the "Memory allocation error" path, ours and the argon2 package's)
//     UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
//     TSAN_OPTIONS: reports go to files (log_path) and do not change the exit status: node itself
//       is not instrumented, so TSan cannot see the atomics V8 synchronises with and reports races
//       inside V8's platform code (TracingController::GetCategoryGroupEnabled, DefaultJobWorker)
//       that are not races. After the run every report is read: one with a frame in the addon
//       (ssr_native.node, src/addon, src/core) fails the run and is printed; the others are
//       counted as node-internal and listed by their top node frame.
//   Each test file is a child process of node --test: the environment reaches them all.
// The sanitizer runtimes are gcc's (gcc -print-file-name=libasan.so), the compiler node-gyp uses.
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const { findNodeGyp, cleanEnv, headersPrefixBesideNode } = require('./build');

const root = path.join(__dirname, '..');

const KINDS = {
  asan: {
    flags: ['-fsanitize=address,undefined', '-fno-sanitize-recover=undefined', '-fno-omit-frame-pointer', '-g', '-O1'],
    runtime: 'libasan.so',
    env: {
      ASAN_OPTIONS:
        'detect_leaks=0:verify_asan_link_order=0:abort_on_error=1:handle_segv=1:allocator_may_return_null=1',
      UBSAN_OPTIONS: 'print_stacktrace=1:halt_on_error=1',
    },
  },
  tsan: {
    flags: ['-fsanitize=thread', '-fno-omit-frame-pointer', '-g', '-O1'],
    runtime: 'libtsan.so',
    env: {
      // log_path is added per run (sanitizedEnv)
      TSAN_OPTIONS: 'halt_on_error=0:exitcode=0:second_deadlock_stack=1:report_signal_unsafe=0:history_size=4',
    },
  },
};

function kindOf(name) {
  const kind = KINDS[name];
  if (!kind) {
    console.error(`usage: node scripts/sanitize.js build|test|run ${Object.keys(KINDS).join('|')} ...`);
    process.exit(2);
  }
  return kind;
}

function stageDir(name) {
  return path.join(root, 'build-sanitize', name);
}

function addonPath(name) {
  return path.join(stageDir(name), 'build', 'Release', 'ssr_native.node');
}

// The shared object gcc links for `-fsanitize=...`, found the way gcc finds it.
function runtimePath(kind) {
  const out = spawnSync('gcc', [`-print-file-name=${kind.runtime}`], { encoding: 'utf8' });
  const file = out.status === 0 ? out.stdout.trim() : '';
  if (!file || !path.isAbsolute(file) || !fs.existsSync(file)) {
    console.error(
      `ssr-native: gcc has no ${kind.runtime} (install gcc's sanitizer runtimes, e.g. libasan8 / libtsan2)`,
    );
    process.exit(1);
  }
  return fs.realpathSync(file);
}

function copyInto(from, to) {
  fs.cpSync(path.join(root, from), path.join(to, from), { recursive: true });
}

function build(name) {
  const kind = kindOf(name);
  const nodeGyp = findNodeGyp();
  if (!nodeGyp) {
    console.error('ssr-native: node-gyp not found (it ships with npm)');
    process.exit(1);
  }
  const stage = stageDir(name);
  // Fresh sources each time (a stale copy would test old code); the object files stay for make.
  for (const entry of ['binding.gyp', 'src', 'include', 'scripts'])
    fs.rmSync(path.join(stage, entry), { recursive: true, force: true });
  fs.mkdirSync(path.join(stage, 'scripts'), { recursive: true });
  for (const entry of ['binding.gyp', 'src', 'include', path.join('scripts', 'sources.js')]) copyInto(entry, stage);
  const flags = kind.flags.join(' ');
  const env = {
    ...cleanEnv(),
    CFLAGS: flags,
    CXXFLAGS: flags,
    LDFLAGS: kind.flags.filter((f) => f.startsWith('-fsanitize')).join(' '),
  };
  // node-addon-api resolves from the staging folder up to this checkout's node_modules.
  const args = [nodeGyp, 'rebuild', '--jobs=max'];
  const nodedir = headersPrefixBesideNode();
  if (nodedir) args.push(`--nodedir=${nodedir}`);
  const result = spawnSync(process.execPath, args, { cwd: stage, env, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status === null ? 1 : result.status);
  console.log(`ssr-native: ${name} build at ${path.relative(root, addonPath(name))}`);
}

// The environment that runs Node against the sanitized binary.
function sanitizedEnv(name) {
  const kind = kindOf(name);
  const addon = addonPath(name);
  if (!fs.existsSync(addon)) {
    console.error(`ssr-native: no ${name} build; run node scripts/sanitize.js build ${name}`);
    process.exit(1);
  }
  const env = { ...process.env, ...kind.env, SSR_NATIVE_ADDON: addon, SSR_NATIVE_SANITIZER: name };
  if (name === 'tsan') {
    const logs = fs.mkdtempSync(path.join(require('os').tmpdir(), 'ssr-native-tsan-'));
    env.TSAN_OPTIONS = `${env.TSAN_OPTIONS}:log_path=${path.join(logs, 'report')}`;
    env.SSR_NATIVE_TSAN_LOGS = logs;
  }
  env.LD_PRELOAD = [runtimePath(kind), process.env.LD_PRELOAD].filter(Boolean).join(':');
  return env;
}

const OUR_FRAME = /ssr_native\.node|\/src\/addon\/|\/src\/core\/|ssr_native::|ssr_native_addon::/;

// Reads the TSan report files of a run: { ours: [report text], theirs: Map(top node frame -> count) }.
function tsanReports(logs) {
  const ours = [];
  const theirs = new Map();
  for (const file of fs.readdirSync(logs)) {
    const text = fs.readFileSync(path.join(logs, file), 'utf8');
    for (const report of text.split(/^==================$/m)) {
      if (!/WARNING: ThreadSanitizer/.test(report)) continue;
      if (OUR_FRAME.test(report)) {
        ours.push(report.trim());
        continue;
      }
      const frame = (report.match(/#\d+ ((?:v8|node|uv_|cppgc)[^ (]*)/) || [])[1] || 'unknown frame';
      const title = (report.match(/WARNING: ThreadSanitizer: ([^(\n]*)/) || [])[1] || '';
      const key = `${title.trim()} in ${frame}`;
      theirs.set(key, (theirs.get(key) || 0) + 1);
    }
  }
  return { ours, theirs };
}

function run(name, argv) {
  const env = sanitizedEnv(name);
  const result = spawnSync(process.execPath, argv, { cwd: root, env, stdio: 'inherit' });
  if (result.signal) console.error(`ssr-native: ${name} run ended by ${result.signal}`);
  let status = result.status === null ? 1 : result.status;
  if (name === 'tsan') {
    const { ours, theirs } = tsanReports(env.SSR_NATIVE_TSAN_LOGS);
    for (const [key, count] of theirs)
      console.error(`ssr-native: tsan: ${count} report(s) inside node itself (uninstrumented, not counted): ${key}`);
    for (const report of ours) console.error(`ssr-native: tsan report involving the addon:\n${report}\n`);
    console.error(
      `ssr-native: tsan: ${ours.length} report(s) involving the addon (reports in ${env.SSR_NATIVE_TSAN_LOGS})`,
    );
    if (ours.length > 0 && status === 0) status = 1;
    if (ours.length === 0) fs.rmSync(env.SSR_NATIVE_TSAN_LOGS, { recursive: true, force: true });
  }
  process.exit(status);
}

function main() {
  const [command, name, ...rest] = process.argv.slice(2);
  kindOf(name);
  if (command === 'build') return build(name);
  if (command === 'test') {
    const split = rest.indexOf('--');
    const files = split < 0 ? rest : rest.slice(0, split);
    const nodeArgs = split < 0 ? [] : rest.slice(split + 1);
    if (files.length === 0) {
      console.error('ssr-native: name the test files to run');
      process.exit(2);
    }
    return run(name, ['--test', ...nodeArgs, ...files]);
  }
  if (command === 'run') return run(name, rest);
  console.error('usage: node scripts/sanitize.js build|test|run asan|tsan ...');
  process.exit(2);
}

if (require.main === module) main();

module.exports = { addonPath, sanitizedEnv };
