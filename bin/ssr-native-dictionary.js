#!/usr/bin/env node
'use strict';
// ssr-native-dictionary <dist/<app>/browser> [-o file] [--max-bytes N] [--level N]
// Builds a compression dictionary from the prerendered pages (*.html) under the folder, for a
// site with fewer pages than compression's learner needs (32 distinct paths), and writes it to
// `file` (default: dictionary.dict beside the folder, e.g. dist/<app>/dictionary.dict). Give it to
// the compression middleware as `dictionary: '<file>'`. Exit codes: 0 written, 1 no dictionary
// could be built (too few pages, none smaller with it) or written, 2 wrong usage.
const fs = require('fs');
const path = require('path');
const { dictionaryFromPages, DEFAULT_MAX_BYTES } = require('../lib/compression/dictionary-from-pages');

const USAGE = 'usage: ssr-native-dictionary <dist/<app>/browser> [-o file] [--max-bytes N] [--level N]';

function parse(argv) {
  const options = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${arg} needs a value`);
      return argv[++i];
    };
    const integer = () => {
      const n = Number(value());
      if (!Number.isInteger(n)) throw new Error(`${arg} needs a whole number`);
      return n;
    };
    if (arg === '-o' || arg === '--output') options.output = value();
    else if (arg === '--max-bytes') options.maxBytes = integer();
    else if (arg === '--level') options.level = integer();
    else if (arg === '-h' || arg === '--help') options.help = true;
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
    if (!options.help && !fs.statSync(options.folder, { throwIfNoEntry: false })?.isDirectory())
      throw new Error(`${options.folder} is not a folder`);
  } catch (err) {
    process.stderr.write(`ssr-native-dictionary: ${err.message}\n${USAGE}\n`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(`${USAGE}\n(--max-bytes defaults to ${DEFAULT_MAX_BYTES})\n`);
    return 0;
  }
  const output = options.output || path.join(path.resolve(options.folder), '..', 'dictionary.dict');
  try {
    const built = await dictionaryFromPages(options.folder, { maxBytes: options.maxBytes, level: options.level });
    fs.writeFileSync(output, built.dictionary);
    process.stdout.write(
      `dictionary: ${built.dictionary.length} bytes (${built.method}) from ${built.pages} pages ` +
        `(${built.sampleBytes} bytes${built.skipped ? `, ${built.skipped} skipped` : ''}) -> ${output}\n` +
        `use it: compression({ dictionary: ${JSON.stringify(output)} })\n`,
    );
    return 0;
  } catch (err) {
    process.stderr.write(`ssr-native-dictionary: ${err.message}\n`);
    return err instanceof RangeError || err instanceof TypeError ? 2 : 1;
  }
}

main().then((code) => {
  process.exitCode = code;
});
