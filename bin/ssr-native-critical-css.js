#!/usr/bin/env node
'use strict';
// ssr-native-critical-css <browser folder> [--deploy-url URL] [--no-minify] [--auto-csp] [--jobs N] [--beasties 0.4|0.5]
// Run after `ng build` (with `optimization.styles.inlineCritical: false`): inlines the critical
// CSS of every prerendered page as Angular's build-time inliner does. Exit codes: 0 done (pages
// whose stylesheet is missing are left unchanged, with a warning on stderr), 1 a page could not
// be read or written, 2 wrong usage (no folder, unknown option, a folder that is not there).
const { inlinePrerendered } = require('../lib/critical-css/prerender');

const USAGE =
  'usage: ssr-native-critical-css <dist/<app>/browser> [--deploy-url URL] [--no-minify] [--auto-csp] [--jobs N] [--beasties 0.4|0.5]';

function parse(argv) {
  const options = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${arg} needs a value`);
      return argv[++i];
    };
    if (arg === '--deploy-url') options.deployUrl = value();
    else if (arg === '--no-minify') options.minify = false;
    else if (arg === '--auto-csp') options.autoCsp = true;
    else if (arg === '--beasties') options.beasties = value();
    else if (arg === '--jobs') {
      options.jobs = Number(value());
      if (!Number.isInteger(options.jobs) || options.jobs < 1) throw new Error('--jobs needs a whole number >= 1');
    } else if (arg === '-h' || arg === '--help') options.help = true;
    else if (arg.startsWith('-')) throw new Error(`unknown option ${arg}`);
    else if (options.folder === undefined) options.folder = arg;
    else throw new Error(`one folder only (got ${options.folder} and ${arg})`);
  }
  if (!options.help && options.folder === undefined) throw new Error('the browser folder is missing');
  return options;
}

async function main() {
  let options;
  try {
    options = parse(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`ssr-native-critical-css: ${err.message}\n${USAGE}\n`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const start = process.hrtime.bigint();
  let result;
  try {
    result = await inlinePrerendered(options);
  } catch (err) {
    process.stderr.write(`ssr-native-critical-css: ${err.message}\n`);
    return 2;
  }
  for (const warning of result.warnings) process.stderr.write(`warning: ${warning}\n`);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  process.stdout.write(
    `critical CSS (${result.angular ? `as Angular ${result.angular} writes it, ` : ''}beasties ${result.beasties}): ` +
      `${result.inlined} inlined, ${result.already} already inlined, ` +
      `${result.unchanged} unchanged, ${result.failed} failed of ${result.pages} pages in ${ms.toFixed(0)} ms\n`,
  );
  return result.failed > 0 ? 1 : 0;
}

main().then((code) => {
  process.exitCode = code;
});
