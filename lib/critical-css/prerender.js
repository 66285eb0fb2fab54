'use strict';
// Critical CSS for prerendered sites, after `ng build`: every .html page under the browser folder
// gets what @angular/build's build-time inliner (beasties, InlineCriticalCssProcessor in
// @angular/build/src/utils/index-file/inline-critical-css.js) writes: minified CSS in production,
// `publicPath: deployUrl`, and for a page with an `ngCspNonce` its CSP loader script in place of
// the `onload` handler. The pages are split among worker threads (one engine each, one per core);
// each page is written to a temporary file renamed over it, so a reader never sees half a page.
// A page already inlined (by Angular or by an earlier run) is left alone.
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { Worker } = require('worker_threads');
const native = require('../native');
const { CriticalCss } = require('./critical-css');
const { beastiesVersion, beastiesOf, installedAngularSsr } = require('./beasties-version');
const { invalidType, outOfRange, ownError } = require('../validate');
const { ownOptions } = require('../options');

const PRERENDER_OPTIONS = ['folder', 'deployUrl', 'minify', 'autoCsp', 'beasties', 'jobs'];

const CSP_MEDIA_ATTR = 'ngCspMedia';
// The loader scripts' texts as the engine writes them (one copy, in the addon).
const LOADERS = native.criticalCssLoaderScripts;
// @angular/build's LINK_LOAD_SCRIPT_CONTENT, as its build-time inliner writes it into the page:
// @angular/ssr's (the engine's) after a newline.
const LINK_LOAD_SCRIPT_CONTENT = `\n${LOADERS.csp}`;

// The marks of an inlined page: the deferred link beasties writes (`onload="this.media=..."`, or
// Angular 22.2's `data-beasties-media`), on a CSP page the attribute that replaces the onload, or
// the container attribute beasties puts on <html>.
const INLINED_RE =
  /<link\b[^>]*\s(?:onload\s*=\s*["']?this\.media=|ngcspmedia\s*=|data-beasties-media\s*=)|<html\b[^>]*\sdata-beasties-container[\s>=]/i;
const PRERENDERED_RE = /<[a-z][^>]*\sng-server-context\s*=\s*["']?ssg\b/i;
const LINK_RE = /<link\b[^>]*>/gi;
const ATTR_RE = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g;
const NONCE_RE = /<[a-z][^>]*\sngcspnonce\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i;
const ONLOAD_RE = /(<link\b[^>]*?)\s+onload="this\.media=(?:'([^']*)'|&quot;(.*?)&quot;);?"([^>]*>)/gi;

/** Whether `html` already carries inlined critical CSS (Angular's or ssr-native's). */
function isInlined(html) {
  return INLINED_RE.test(html);
}

function attributes(tag) {
  const out = {};
  ATTR_RE.lastIndex = 5; // after `<link`
  for (let m; (m = ATTR_RE.exec(tag)) !== null;) {
    const value = m[2] !== undefined ? m[2] : m[3] !== undefined ? m[3] : m[4];
    out[m[1].toLowerCase()] = value === undefined ? '' : value;
  }
  return out;
}

/**
 * The hrefs of the page's local stylesheets that are not in `folder` (after `publicPath`);
 * `known` remembers each file's answer across pages.
 */
function missingStylesheets(html, folder, publicPath, known) {
  const missing = [];
  for (const tag of html.match(LINK_RE) || []) {
    const attrs = attributes(tag);
    if (!/(^|\s)stylesheet(\s|$)/i.test(attrs.rel || '') || !attrs.href) continue;
    let href = attrs.href;
    if (publicPath && href.startsWith(publicPath)) href = href.slice(publicPath.length);
    if (/^([a-z][a-z0-9+.-]*:|\/\/)/i.test(href)) continue; // another origin: not ours to read
    let file;
    try {
      file = path.join(folder, decodeURI(href.replace(/[?#].*$/, '')));
    } catch {
      continue; // not a URL the engine could read either
    }
    let exists = known.get(file);
    if (exists === undefined) known.set(file, (exists = fs.existsSync(file)));
    if (!exists) missing.push(attrs.href);
  }
  return missing;
}

// What @angular/build adds around beasties that the engine (which writes @angular/ssr's output)
// does not: its CSP loader script opens with a newline where @angular/ssr's does not; with
// autoCsp and no ngCspNonce, the `onload` handler becomes an ngCspMedia attribute and the script
// (without a nonce) goes before the first such link; then `defer=""` and `nomodule=""` lose their
// empty value, and <html>'s data-beasties-container gains one.
const SSR_SCRIPT = `>${LINK_LOAD_SCRIPT_CONTENT.slice(1)}</script>`;
const BUILD_SCRIPT = `>${LINK_LOAD_SCRIPT_CONTENT}</script>`;

// Angular 22.2's loader (beasties 0.5's preload: 'media-script'), one script at the end of <body>.
const MEDIA_SCRIPT = `<script>${LOADERS.media}</script>`;
const CSP_META_RE =
  /(<meta\s+http-equiv="Content-Security-Policy"\s+content="script-src 'strict-dynamic')((?: '[^']*')*)( https:)?/i;

// @angular/build 22's autoCsp runs after its inliner and hashes every inline script, the loader
// included; run after the build, the loader's hash is added to the policy autoCsp wrote (last, as
// the loader is the document's last script; with 'unsafe-inline' after https: as autoCsp adds it
// once there is a hash), or the browser would refuse it and the stylesheet stay media="print".
function allowMediaScript(html) {
  if (!html.includes(MEDIA_SCRIPT)) return html;
  const body = MEDIA_SCRIPT.slice('<script>'.length, -'</script>'.length);
  const hash = `'sha256-${crypto.createHash('sha256').update(body, 'utf8').digest('base64')}'`;
  return html.replace(CSP_META_RE, (all, start, hashes, https) => {
    if (hashes.includes(hash)) return all;
    const fallback = https && !/'sha256-/.test(hashes) ? `${https} 'unsafe-inline'` : https || '';
    return `${start}${hashes} ${hash}${fallback}`;
  });
}

function angularBuildTime(html, autoCsp) {
  if (autoCsp) html = allowMediaScript(html);
  if (NONCE_RE.test(html)) {
    html = html.replace(SSR_SCRIPT, BUILD_SCRIPT);
  } else if (autoCsp) {
    let scripted = false;
    html = html.replace(ONLOAD_RE, (all, start, single, double, end) => {
      const media = single !== undefined ? single : double;
      const link = `${start}${end.slice(0, -1).replace(/\s*\/$/, '')} ${CSP_MEDIA_ATTR}="${media}">`;
      if (scripted) return link;
      scripted = true;
      return `<script${BUILD_SCRIPT}${link}`;
    });
  }
  // the index-html pipeline writes the page again after beasties: the container attribute
  // beasties put on <html> then has an empty value
  html = html.replace(/(<html\b[^>]*\sdata-beasties-container)(?=[\s>])/i, '$1=""');
  return html.replace(/(\s(?:defer|nomodule))=""/g, '$1');
}

function writeAtomically(file, text) {
  const temp = path.join(
    path.dirname(file),
    `.${path.basename(file)}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`,
  );
  try {
    fs.writeFileSync(temp, text);
    fs.renameSync(temp, file);
  } catch (err) {
    fs.rmSync(temp, { force: true });
    throw err;
  }
}

/**
 * Inlines the pages `files` (absolute paths) in this thread. Returns
 * { inlined, already, unchanged, failed, warnings: [string] }.
 */
function inlineFiles(files, options) {
  const engineFor = (minify) =>
    new CriticalCss({
      browserDistFolder: options.folder,
      publicPath: options.deployUrl || '',
      minify,
      beasties: options.beasties,
      name: `prerender:${options.folder}:${process.pid}:${minify}:${Math.random()}`,
      warm: false,
    });
  // Angular inlines a prerendered page (ng-server-context="ssg") while rendering it, with
  // @angular/ssr's processor (minify off: the engine's defaults); the other pages (index.csr.html,
  // the pages of a build without SSR) after the build, with @angular/build's (minify per build).
  const rendered = engineFor(false);
  const built = engineFor(options.minify);
  const result = { inlined: 0, already: 0, unchanged: 0, failed: 0, warnings: [] };
  const relative = (file) => path.relative(options.folder, file);
  const known = new Map();
  try {
    for (const file of files) {
      let bytes;
      try {
        bytes = fs.readFileSync(file);
      } catch (err) {
        result.failed++;
        result.warnings.push(`${relative(file)}: cannot read (${err.code || err.message})`);
        continue;
      }
      const html = bytes.toString('utf8');
      if (isInlined(html)) {
        result.already++;
        continue;
      }
      // beasties would warn and still rewrite the page around the link it could not read
      const missing = missingStylesheets(html, options.folder, options.deployUrl, known);
      if (missing.length > 0) {
        result.unchanged++;
        result.warnings.push(`${relative(file)}: stylesheet not found (${missing.join(', ')}), left unchanged`);
        continue;
      }
      // A prerendered page goes through as bytes: its inlined CSS (tens of KB a page) then never
      // becomes a JS string (UTF-16 when the page holds a non-Latin-1 character) to be encoded
      // again for the write.
      const prerendered = PRERENDERED_RE.test(html);
      const out = prerendered ? rendered.processSync(bytes) : built.processSync(html);
      if (prerendered ? out === bytes || out.equals(bytes) : out === html) {
        result.unchanged++;
        continue;
      }
      try {
        writeAtomically(file, prerendered ? out : angularBuildTime(out, options.autoCsp));
        result.inlined++;
      } catch (err) {
        result.failed++;
        result.warnings.push(`${relative(file)}: cannot write (${err.code || err.message})`);
      }
    }
  } finally {
    rendered.close();
    built.close();
  }
  return result;
}

/**
 * Whose output to write: { beasties: '0.4' | '0.5', angular: the @angular/ssr version found or
 * null, warning? }. `beasties` given wins; else the @angular/ssr the browser folder resolves
 * (the app's, for a build inside it), else the one the current directory resolves (a build
 * written outside the app, the command run from the app), else Angular 22's, with a warning.
 */
function angularOf(folder, beasties) {
  if (beasties !== undefined) return { beasties: beastiesVersion(beasties), angular: null };
  const angular = installedAngularSsr(folder) || installedAngularSsr(process.cwd());
  if (angular !== null) return { beasties: beastiesOf(angular), angular };
  return {
    beasties: '0.5',
    angular: null,
    warning:
      `no @angular/ssr found from ${folder} or the current directory: pages written as Angular 22 ` +
      'writes them (beasties 0.5); run the command from the app, or pass --beasties 0.4 for Angular 21',
  };
}

/**
 * The warning for a build in server output mode (`outputMode: 'server'`), or undefined: its
 * prerendered pages are also compiled into `<dist>/server/assets-chunks/*_html.mjs`, and those
 * copies are what AngularNodeAppEngine serves. This command rewrites only the browser folder's
 * .html files; the criticalCss middleware in front of the engine inlines the served copies.
 */
async function serverChunksWarning(folder) {
  const chunks = path.join(folder, '..', 'server', 'assets-chunks');
  const names = await fs.promises.readdir(chunks).catch(() => []);
  const pages = names.filter((name) => name.endsWith('_html.mjs')).length;
  if (pages === 0) return undefined;
  const relative = path.relative(process.cwd(), chunks);
  const shown = relative && !relative.startsWith('..') ? relative : chunks;
  return (
    `${shown}: ${pages} page(s) compiled into the server bundle ` +
    '(server output mode), which AngularNodeAppEngine serves, are not rewritten by this command; ' +
    'the criticalCss middleware in front of the engine inlines them as they are sent'
  );
}

async function findPages(folder) {
  const pages = [];
  const walk = async (dir) => {
    const entries = await fs.promises.readdir(dir, { withFileTypes: true });
    await Promise.all(
      entries.map((entry) => {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) return walk(full);
        if (entry.isFile() && entry.name.endsWith('.html')) pages.push(full);
        return undefined;
      }),
    );
  };
  await walk(folder);
  return pages.sort();
}

function runWorker(files, options) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(path.join(__dirname, 'prerender-worker.js'), { workerData: { files, options } });
    let answer;
    worker.once('message', (message) => (answer = message));
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (answer !== undefined) resolve(answer);
      else reject(ownError(Error, 'WORKER_EXITED', `critical-css worker exited with code ${code} before answering`));
    });
  });
}

/**
 * How many threads inline `pages` pages (0 or 1: the calling thread alone). `jobs`: the option,
 * undefined for the default. A worker starts, loads the addon and compiles every stylesheet's
 * plan again: on 1,003 pages, two threads saved 10% of the wall time for 30% more CPU
 * (docs/performance.md). By default one per 2,000 pages, at most `cores`; `jobs` given, that
 * many, at most one per page.
 */
function workerCount(pages, jobs, cores) {
  if (jobs === undefined) return Math.min(cores, Math.ceil(pages / 2000));
  return Math.min(jobs, pages);
}

/**
 * Inlines the critical CSS of every .html page under `options.folder` (the browser folder of a
 * build). options: { folder, deployUrl = '', minify = true, autoCsp = false, beasties (see angularOf),
 * jobs = the number of cores, one per 2,000 pages at most }. Resolves to { pages, inlined, already, unchanged, failed, warnings }.
 */
async function inlinePrerendered(options) {
  if (options === null || typeof options !== 'object') throw invalidType('options', 'an object', options);
  ownOptions(options, PRERENDER_OPTIONS, 'inlinePrerendered(options)');
  if (typeof options.folder !== 'string' || options.folder === '') {
    throw invalidType('options.folder', 'a non-empty string', options.folder);
  }
  const deployUrl = options.deployUrl === undefined ? '' : options.deployUrl;
  if (typeof deployUrl !== 'string') throw invalidType('options.deployUrl', 'a string', deployUrl);
  const cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  const jobs = options.jobs === undefined ? cores : options.jobs;
  if (!Number.isInteger(jobs)) throw invalidType('options.jobs', 'an integer', jobs);
  if (jobs < 1) throw outOfRange('options.jobs', '>= 1', jobs);
  const folder = path.resolve(options.folder);
  const stat = await fs.promises.stat(folder).catch(() => null);
  if (!stat || !stat.isDirectory()) throw ownError(Error, 'NOT_A_FOLDER', `${options.folder}: not a folder`);
  const angular = angularOf(folder, options.beasties);
  const settings = {
    folder,
    deployUrl,
    minify: options.minify !== false,
    autoCsp: options.autoCsp === true,
    beasties: angular.beasties,
  };

  const pages = await findPages(folder);
  const workers = workerCount(pages.length, options.jobs, cores);
  let parts;
  if (workers <= 1) {
    // still off the main thread's event loop only when there are workers; one slice runs here
    parts = [inlineFiles(pages, settings)];
  } else {
    const slices = Array.from({ length: workers }, () => []);
    pages.forEach((page, i) => slices[i % workers].push(page));
    parts = await Promise.all(slices.map((files) => runWorker(files, settings)));
  }
  const total = { pages: pages.length, inlined: 0, already: 0, unchanged: 0, failed: 0, warnings: [], ...angular };
  if (angular.warning) total.warnings.push(angular.warning);
  delete total.warning;
  const chunksWarning = await serverChunksWarning(folder);
  if (chunksWarning) total.warnings.push(chunksWarning);
  for (const part of parts) {
    for (const key of ['inlined', 'already', 'unchanged', 'failed']) total[key] += part[key];
    total.warnings.push(...part.warnings);
  }
  total.warnings.sort();
  return total;
}

module.exports = { inlinePrerendered, workerCount, inlineFiles, isInlined, angularBuildTime, LINK_LOAD_SCRIPT_CONTENT };
