'use strict';
// Compression Dictionary Transport (RFC 9842) for the compression middlewares: one object per
// middleware made from its `dictionary` option, holding the dictionary in use (learned from the
// site's shareable HTML, or supplied), the one before it (clients that still hold it keep getting
// dcz until they fetch the new one), and what every middleware asks of it:
//  - serve(path): the dictionary at the path this object owns (`<prefix><id>.dict`), with
//    Use-As-Dictionary (match, match-dest, id) and a year of public caching (the hash is in the
//    path, so a new dictionary has a new path). Only these exact paths answer; anything else under
//    the prefix is a 404, and no path ever reaches the file system.
//  - link(): the Link header that announces it on HTML answers.
//  - choose(acceptEncoding, availableDictionary, response): the dictionary to answer `dcz` with,
//    when the request accepts dcz, names one of ours by its SHA-256 and, for a learned dictionary,
//    the response may be shared (below); else null (a normal coding).
//  - ended(req, res, body, answeredWith, advice): a response has ended; on the head it was sent
//    with (lib/http/sent-head.js) its whole body is offered to the learner (dictionary-learner.js:
//    which it keeps), and a dcz answer is checked for a late mark (below).
//  - record(dictionary, original, encoded): metrics.
//
// A learned dictionary's content comes from pages visitors requested, and the public pages it
// learns from may reflect what they typed. A body compressed against it would tell, by its size,
// whether a secret on it matches what the dictionary holds (an oracle an attacker could steer).
// So a response the sharing rule refuses (private, no-store, Set-Cookie, a request with Cookie,
// Authorization or a body: lib/http/shareable.js, through the learner's sharingRefusal) is never
// sent in dcz against a learned dictionary unless `privateResponses` opts its route in; it gets
// Brotli/zstd without a dictionary. A supplied dictionary is the app's own bytes: no visitor
// steers it, so it answers every response as plain compression would.
//
// choose() reads the head as the middleware sees it; a header set later (a session middleware
// mounted where its cookie is set after compression has answered) is seen only once the response
// has ended. A dcz answer against a learned dictionary whose head as sent the sharing rule refuses
// is a late mark: counted (`lateMarks`), learned-dictionary dcz is off for this middleware until
// restart (`dczOff`), and one warning names the mount order that avoids it.
const fs = require('fs');
const dcz = require('./dcz');
const { DczDictionary, DEFAULT_LEVEL } = dcz;
const { DictionaryLearner, sharingRefusal } = require('./dictionary-learner');
const { invalidType, outOfRange } = require('../validate');
const { ownOptions } = require('../options');
const { addSource } = require('../stat-sources');
const { sentHeaderReader } = require('../http/sent-head');

const DEFAULT_PREFIX = '/_ssr-native/dictionary/';
// `:` + base64 of 32 bytes (44 characters) + `:`; anything else is not one of our hashes.
const AVAILABLE_DICTIONARY_LENGTH = 46;
const MAX_ACCEPT_ENCODING = 1024;
// sf-string characters allowed in match (no quote, backslash or control characters)
const MATCH_REGEXP = /^\/[\x20-\x21\x23-\x5b\x5d-\x7e]{0,511}$/;
const PREFIX_REGEXP = /^\/[A-Za-z0-9._~!$&'()*+,;=:@/-]{0,200}\/$/;

const DEFAULTS = {
  match: '/*',
  prefix: DEFAULT_PREFIX,
  maxBytes: 128 * 1024,
  minPages: 32,
  maxSamples: 48,
  maxSampleBytes: 4 * 1024 * 1024,
  sampleEvery: 16,
  rebuildAfter: 32,
  rebuildInterval: 60000,
  level: DEFAULT_LEVEL,
};
// the names options.dictionary knows (lib/options.js refuses others)
const DICTIONARY_OPTIONS = [...Object.keys(DEFAULTS), 'source', 'learn', 'privateResponses'];
// no dictionary is learned from fewer distinct paths (docs/compression.md)
const MIN_PAGES = 32;

function readInteger(options, name, min, max) {
  const value = options[name] === undefined ? DEFAULTS[name] : options[name];
  if (typeof value !== 'number' || !Number.isInteger(value))
    throw invalidType(`options.dictionary.${name}`, 'an integer', value);
  if (value < min || value > max) throw outOfRange(`options.dictionary.${name}`, `${min} to ${max}`, value);
  return value;
}

// The dictionary bytes a user supplies: a Buffer / TypedArray, or a file path read once now.
function suppliedBytes(source) {
  if (typeof source === 'string') return fs.readFileSync(source);
  if (ArrayBuffer.isView(source)) return Buffer.from(source.buffer, source.byteOffset, source.byteLength);
  throw invalidType('options.dictionary.source', 'a Buffer or a file path', source);
}

/** Whether an Accept-Encoding value accepts `dcz` (a q-value above 0). */
function acceptsDcz(header) {
  if (typeof header !== 'string' || header.length > MAX_ACCEPT_ENCODING) return false;
  const at = header.toLowerCase().indexOf('dcz');
  if (at === -1) return false;
  for (const item of header.split(',')) {
    const parts = item.split(';');
    if (parts[0].trim().toLowerCase() !== 'dcz') continue;
    for (let i = 1; i < parts.length; i++) {
      const param = parts[i].trim().toLowerCase();
      if (param.startsWith('q=')) {
        const q = Number(param.slice(2));
        return Number.isFinite(q) && q > 0;
      }
    }
    return true;
  }
  return false;
}

class DictionaryTransport {
  /** Null when the option is off; throws TypeError/RangeError for a malformed option. */
  static from(option, name = 'compression') {
    if (option === undefined || option === false || option === null) return null;
    let options;
    if (option === true) options = {};
    else if (typeof option === 'string' || ArrayBuffer.isView(option)) options = { source: option };
    else if (typeof option === 'object') options = option;
    else throw invalidType('options.dictionary', 'true, a Buffer, a file path or an object', option);
    ownOptions(options, DICTIONARY_OPTIONS, `${name}'s options.dictionary`);
    return new DictionaryTransport(options, name);
  }

  constructor(options, name) {
    const match = options.match === undefined ? DEFAULTS.match : options.match;
    if (typeof match !== 'string' || !MATCH_REGEXP.test(match))
      throw invalidType('options.dictionary.match', 'a path pattern starting with /', match);
    const prefix = options.prefix === undefined ? DEFAULTS.prefix : options.prefix;
    if (typeof prefix !== 'string' || !PREFIX_REGEXP.test(prefix))
      throw invalidType('options.dictionary.prefix', 'a path starting and ending with /', prefix);
    this.match = match;
    this.prefix = prefix;
    this.level = readInteger(options, 'level', 1, 19);
    const learnOptions = {
      maxBytes: readInteger(options, 'maxBytes', 1024, 8 * 1024 * 1024),
      minPages: readInteger(options, 'minPages', MIN_PAGES, 1000),
      maxSamples: readInteger(options, 'maxSamples', MIN_PAGES, 1000),
      maxSampleBytes: readInteger(options, 'maxSampleBytes', 1024, 256 * 1024 * 1024),
      sampleEvery: readInteger(options, 'sampleEvery', 1, 1000000),
      rebuildAfter: readInteger(options, 'rebuildAfter', 1, 1000000),
      rebuildInterval: readInteger(options, 'rebuildInterval', 0, 24 * 3600 * 1000),
      level: this.level,
    };
    if (learnOptions.maxSamples < learnOptions.minPages)
      throw outOfRange(
        'options.dictionary.maxSamples',
        `at least minPages (${learnOptions.minPages})`,
        learnOptions.maxSamples,
      );
    const privateResponses = options.privateResponses === undefined ? false : options.privateResponses;
    if (typeof privateResponses !== 'boolean' && typeof privateResponses !== 'function')
      throw invalidType(
        'options.dictionary.privateResponses',
        'a boolean or a function of the request',
        privateResponses,
      );
    this.privateResponses = privateResponses;
    const available = dcz.available;
    this.available = available;
    this.reason = available ? '' : dcz.unavailableReason;
    this.current = null;
    this.previous = null;
    this.learner = null;
    this.name = name;
    this.dczOff = false; // a late mark turned learned-dictionary dcz off until restart
    this.counts = {
      hits: 0,
      bytesIn: 0,
      bytesOut: 0,
      bytesSaved: 0,
      unknownDictionary: 0,
      served: 0,
      privateRefused: 0,
      lateMarks: 0,
    };
    if (options.source !== undefined) {
      const bytes = suppliedBytes(options.source);
      if (bytes.length === 0) throw outOfRange('options.dictionary.source', 'at least 1 byte', bytes);
      if (available) this.publish(new DczDictionary(bytes, { level: this.level, method: 'supplied' }));
    } else if (available && options.learn !== false) {
      // A learned dictionary (up to maxBytes: 8 MiB) is prepared off the event loop when large;
      // only the newest build is published, whatever order preparations finish in.
      let builds = 0;
      this.learner = new DictionaryLearner(learnOptions, (bytes, method) => {
        const build = ++builds;
        DczDictionary.prepare(bytes, { level: this.level, method }, (err, dictionary) => {
          if (err) this.learner.counts.buildErrors++;
          else if (build === builds) this.publish(dictionary);
        });
      });
    }
    addSource('compression_dictionary', name, (transport) => transport.stats(), {
      owner: this,
      counters: [
        'bytesIn',
        'bytesOut',
        'bytesSaved',
        'unknownDictionary',
        'served',
        'privateRefused',
        'lateMarks',
        'sampled',
        'refused',
        'builds',
      ],
    });
  }

  publish(dictionary) {
    this.previous = this.current;
    this.current = dictionary;
    dictionary.path = `${this.prefix}${dictionary.id}.dict`;
    dictionary.link = `<${dictionary.path}>; rel="compression-dictionary"`;
    dictionary.useAsDictionary = `match="${this.match}", match-dest=("document"), id="${dictionary.id}"`;
  }

  /** Whether `url` (a request target) is under the path this object owns. */
  owns(url) {
    return typeof url === 'string' && url.startsWith(this.prefix);
  }

  /** { status, headers, body } for a request under the prefix. */
  serve(method, url) {
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    let dictionary = null;
    if (this.current !== null && path === this.current.path) dictionary = this.current;
    else if (this.previous !== null && path === this.previous.path) dictionary = this.previous;
    if (dictionary === null) {
      return { status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: Buffer.from('Not Found') };
    }
    if (method !== 'GET' && method !== 'HEAD') {
      return { status: 405, headers: { Allow: 'GET, HEAD', 'Content-Length': '0' }, body: Buffer.alloc(0) };
    }
    this.counts.served++;
    return {
      status: 200,
      headers: {
        'Content-Type': 'application/octet-stream',
        'Cache-Control': 'public, max-age=31536000, immutable',
        'Use-As-Dictionary': dictionary.useAsDictionary,
        'Access-Control-Allow-Origin': '*',
        'Content-Length': String(dictionary.bytes.length),
      },
      body: method === 'HEAD' ? Buffer.alloc(0) : dictionary.bytes,
    };
  }

  /** The Link header value announcing the dictionary in use, if any. */
  link() {
    return this.current === null ? undefined : this.current.link;
  }

  /**
   * The dictionary to answer with in `dcz`, or null. Never throws on hostile headers.
   * `response`: { req, status, getHeader } of the answer about to be sent (`req` Node's
   * IncomingMessage: method, url, headers), for the sharing check; without it, null whenever the
   * dictionary is learned.
   */
  choose(acceptEncoding, availableDictionary, response) {
    if (availableDictionary === undefined || this.current === null) return null;
    if (typeof availableDictionary !== 'string' || availableDictionary.length !== AVAILABLE_DICTIONARY_LENGTH)
      return null;
    if (!acceptsDcz(acceptEncoding)) return null;
    let dictionary = null;
    if (availableDictionary === this.current.availableDictionary) dictionary = this.current;
    else if (this.previous !== null && availableDictionary === this.previous.availableDictionary)
      dictionary = this.previous;
    if (dictionary === null) {
      this.counts.unknownDictionary++;
      return null;
    }
    if (dictionary.method === 'supplied') return dictionary;
    if (this.dczOff) return null;
    if (this.whyNotLearnedDcz(response) !== undefined) {
      this.counts.privateRefused++;
      return null;
    }
    return dictionary;
  }

  // Why `response` may not be compressed against a learned dictionary, or undefined: the sharing
  // rule lets it be shared, or the app opted its route in.
  whyNotLearnedDcz(response) {
    if (response === undefined || response === null) return 'unknown';
    const req = response.req;
    const why = sharingRefusal(req.method, response.status, req.headers, response.getHeader);
    if (why === undefined) return undefined;
    // read as the cache reads its `cookies` / `authorization` opt-ins (lib/http/shareable.js)
    const opt = this.privateResponses;
    return opt === true || (typeof opt === 'function' && Boolean(opt(req))) ? undefined : why;
  }

  /**
   * A response has ended: `res` is Node's response (or node:http2's compatibility one), whose
   * head as sent decides. `req`: { method, url, headers } (Node's request); `body`: its whole
   * identity bytes (a string or Buffer) for the learner, or undefined; `answeredWith`: the
   * dictionary choose() gave it, or null; `advice`: the mount order that shows this framework's
   * late headers to choose(), for the warning.
   */
  ended(req, res, body, answeredWith, advice) {
    let read = null; // made when first asked: most pages are neither dcz nor sampled
    const getHeader = (name) => (read || (read = sentHeaderReader(res)))(name);
    if (answeredWith !== null && answeredWith.method !== 'supplied' && getHeader('content-encoding') === 'dcz') {
      const why = this.whyNotLearnedDcz({ req, status: res.statusCode, getHeader });
      if (why !== undefined) this.lateMark(why, advice);
    }
    if (body !== undefined && this.learner !== null)
      this.learner.offer(req.method, req.originalUrl || req.url, res.statusCode, req.headers, getHeader, body);
  }

  // A dcz answer went out against a learned dictionary with a mark the sharing rule refuses,
  // added after choose() had read the head: no more learned-dictionary dcz until restart.
  lateMark(why, advice) {
    this.counts.lateMarks++;
    if (this.dczOff) return;
    this.dczOff = true;
    process.emitWarning(
      `${this.name}'s dictionary: a response went out in dcz against the learned dictionary, and ` +
        `its head as sent is not shareable ("${why}", set after compression had chosen dcz). ` +
        `Learned-dictionary dcz is off until restart. ${advice}; see docs/compression.md, ` +
        '"What the dictionary learns"',
      { code: 'SSR_NATIVE_DICTIONARY_LATE_MARK' },
    );
  }

  /** A dcz answer went out: `original` bytes as `encoded` bytes. */
  record(originalLength, encodedLength) {
    this.counts.hits++;
    this.counts.bytesIn += originalLength;
    this.counts.bytesOut += encodedLength;
    this.counts.bytesSaved += originalLength - encodedLength;
  }

  stats() {
    const learner = this.learner === null ? {} : this.learner.stats();
    return {
      available: this.available,
      ...this.counts,
      dczOff: this.dczOff,
      sampled: learner.sampled || 0,
      refused: learner.refused || 0,
      refusedBy: learner.refusedBy || {},
      builds: (learner.builds || 0) + (learner.rebuilds || 0),
      dictionaryBytes: this.current === null ? 0 : this.current.bytes.length,
    };
  }
}

module.exports = { DictionaryTransport, acceptsDcz, DEFAULT_PREFIX };
