'use strict';
// A compression dictionary built from a folder of pages (a prerendered site's dist/<app>/browser),
// for a site with fewer distinct pages than the learner needs (dictionary-learner.js: minPages).
// The same builder as the learner's (native.zstdChooseDictionary, dictionary_builder.cc): zstd's
// training and the pages' common parts, each measured on held-out pages, the smaller wins. The
// pages are the site's own files, not what visitors asked for, so the result is a supplied
// dictionary (compression's `dictionary: file`), which no visitor steers.
const fs = require('fs');
const path = require('path');
const native = require('../native');
const dcz = require('./dcz');
const { invalidType, outOfRange } = require('../validate');

const DEFAULT_MAX_BYTES = 128 * 1024; // the learned dictionary's default size (dictionary-transport.js)
// the learner's bounds on one page, and bounds on the whole read
const MIN_PAGE_BYTES = 256;
const MAX_PAGE_BYTES = 512 * 1024;
const MAX_PAGES = 2000;
const MAX_SAMPLE_BYTES = 256 * 1024 * 1024;

// The .html files under `folder`, sorted (the same pages give the same dictionary). Symbolic
// links are not followed: only the folder's own files are read.
async function htmlFiles(folder) {
  const found = [];
  const walk = async (dir) => {
    const entries = await fs.promises.readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile() && entry.name.toLowerCase().endsWith('.html')) found.push(full);
    }
  };
  await walk(folder);
  return found;
}

function choose(samples, maxBytes, level) {
  return new Promise((resolve, reject) => {
    native.zstdChooseDictionary(samples, maxBytes, level, null, 1, (err, choice) =>
      err ? reject(err) : resolve(choice),
    );
  });
}

/**
 * Builds a dictionary from the .html pages under `folder`. Resolves to { dictionary (Buffer),
 * method ('trained' or 'common'), pages (files used), skipped (files outside the page bounds),
 * sampleBytes, heldOutBytes (the held-out pages compressed with it) }; rejects with a message
 * saying what is missing when no dictionary can be built.
 */
async function dictionaryFromPages(folder, { maxBytes = DEFAULT_MAX_BYTES, level = dcz.DEFAULT_LEVEL } = {}) {
  if (!dcz.available) throw new Error(`no dictionary can be built: ${dcz.unavailableReason}`);
  if (typeof folder !== 'string' || folder === '') throw invalidType('folder', 'a folder path', folder);
  if (!Number.isInteger(maxBytes) || maxBytes < 1024 || maxBytes > 8 * 1024 * 1024)
    throw outOfRange('maxBytes', '1024 to 8388608', maxBytes);
  if (!Number.isInteger(level) || level < 1 || level > 19) throw outOfRange('level', '1 to 19', level);
  const stat = await fs.promises.stat(folder).catch(() => null);
  if (stat === null || !stat.isDirectory()) throw new Error(`${folder} is not a folder`);
  const files = await htmlFiles(folder);
  const samples = [];
  let sampleBytes = 0;
  let skipped = 0;
  for (const file of files) {
    if (samples.length >= MAX_PAGES) break;
    const bytes = await fs.promises.readFile(file);
    if (
      bytes.length < MIN_PAGE_BYTES ||
      bytes.length > MAX_PAGE_BYTES ||
      sampleBytes + bytes.length > MAX_SAMPLE_BYTES
    ) {
      skipped++;
      continue;
    }
    samples.push(bytes);
    sampleBytes += bytes.length;
  }
  if (samples.length < 2)
    throw new Error(
      `${folder} has ${samples.length} page(s) of ${MIN_PAGE_BYTES} B to ${MAX_PAGE_BYTES / 1024} KiB ` +
        `(of ${files.length} .html files); a dictionary needs at least 2`,
    );
  const choice = await choose(samples, maxBytes, level);
  if (choice.dictionary === null || choice.dictionary === undefined)
    throw new Error(`no dictionary made the pages of ${folder} smaller`);
  const dictionary = Buffer.from(choice.dictionary);
  const heldOutBytes = choice.method === 'trained' ? choice.trainedBytes : choice.commonBytes;
  return { dictionary, method: choice.method, pages: samples.length, skipped, sampleBytes, heldOutBytes };
}

module.exports = { dictionaryFromPages, DEFAULT_MAX_BYTES };
