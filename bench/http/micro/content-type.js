'use strict';
// ns per call of one content-type candidate on one case; run pinned, one candidate per process,
// by scenarios/content-type.js (so no candidate's JIT or heap state affects another's).
// Usage: node micro/content-type.js <case> <candidate> <iterations>  -> JSON { ns, sink }
// (ns: CPU time per call)
//   cases: cached (parse(string): the same few headers, a fresh string per call, as the HTTP
//            parser makes them), cached-req (the same through parse(req), as body-parser calls it),
//          uncached (a header never seen before on every call),
//          roundtrip (Express's setCharset: parse, set charset, format)
//          uncached-long (the same with ~450-character headers)
//   candidates: content-type, fast-content-type-parse, ssr-native, ssr-native-native-scanner,
//               ssr-native-js-scanner, ssr-native-no-cache; content-type-2 (2.1.0), ssr-native-v2
//               (the 2.x API: parse(string) only)
const path = require('path');

const [caseName, candidate, iterationsArg] = process.argv.slice(2);
const iterations = Number(iterationsArg);
const root = path.join(__dirname, '..', '..', '..');

const reference = require('content-type');
let parse;
let format = reference.format;
if (candidate === 'content-type') {
  parse = reference.parse;
} else if (candidate === 'fast-content-type-parse') {
  // Parse only; it has no format, so the round trip formats with content-type's.
  // It takes only strings: a request's header is read out for it.
  const fast = require('fast-content-type-parse').parse;
  parse = (arg) => fast(typeof arg === 'string' ? arg : arg.headers['content-type']);
} else if (candidate.startsWith('ssr-native')) {
  const ours = require(path.join(root, 'lib', 'content-type', 'index.js'));
  if (candidate === 'ssr-native-native-scanner') ours.configure({ scanner: 'native' });
  if (candidate === 'ssr-native-js-scanner') ours.configure({ scanner: 'js' });
  if (candidate === 'ssr-native-no-cache') ours.configure({ cacheSize: 0 });
  parse = ours.parse;
  format = ours.format;
} else if (candidate === 'content-type-2') {
  ({ parse, format } = require('content-type2'));
} else if (candidate === 'ssr-native-v2') {
  ({ parse, format } = require(path.join(root, 'lib', 'content-type', 'v2.js')));
} else {
  throw new Error(`unknown candidate ${candidate}`);
}

// Request headers as Node's HTTP parser hands them over: a new flat string on every request.
const REQUEST_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=----WebKitFormBoundary7MA4YWxkTrZu0gW',
  'text/plain; charset=UTF-8',
];
// Headers never seen before: the same shapes with a counter in the subtype, as flat strings
// (a template literal makes a rope, which a parser would first have to flatten).
function distinct(first, count) {
  return Array.from({ length: count }, (_, k) => {
    const i = first + k;
    const t = REQUEST_TYPES[i % REQUEST_TYPES.length];
    const slash = t.indexOf('/');
    return Buffer.from(`${t.slice(0, slash + 1)}x${i}-${t.slice(slash + 1)}`, 'latin1').latin1Slice();
  });
}
// What Express passes to setCharset: res.send's and res.json's types (the same strings each time).
const RESPONSE_TYPES = ['text/html', 'application/json', 'text/plain; charset=utf-8', 'application/javascript'];

// Inputs are made in chunks of CHUNK, outside the timed part, and parsed while they are still in
// the CPU cache, as a header is right after the HTTP parser made it (a pre-made array of 300,000
// strings would measure memory latency instead).
const CHUNK = 1024;
let sink = 0;
let makeChunk;
let body;
let counter = 0;
if (caseName === 'cached') {
  const buffers = REQUEST_TYPES.map((t) => Buffer.from(t, 'latin1'));
  makeChunk = () => Array.from({ length: CHUNK }, () => buffers[counter++ % buffers.length].latin1Slice());
  body = (h) => parse(h).type.length;
} else if (caseName === 'cached-req') {
  // What body-parser and Koa do: parse(req), reading req.headers['content-type'].
  const buffers = REQUEST_TYPES.map((t) => Buffer.from(t, 'latin1'));
  makeChunk = () =>
    Array.from({ length: CHUNK }, () => ({
      headers: { host: 'localhost', 'content-type': buffers[counter++ % buffers.length].latin1Slice() },
    }));
  body = (req) => parse(req).type.length;
} else if (caseName === 'uncached') {
  makeChunk = () => distinct((counter += CHUNK) - CHUNK, CHUNK);
  body = (h) => parse(h).type.length;
} else if (caseName === 'uncached-long') {
  // Long headers (~450 characters) never seen before: where the C++ scanner is used by default.
  const boundary = 'b'.repeat(400);
  makeChunk = () =>
    Array.from({ length: CHUNK }, () =>
      Buffer.from(`multipart/form-data; boundary="${boundary}${counter++}"; charset=utf-8`, 'latin1').latin1Slice(),
    );
  body = (h) => parse(h).type.length;
} else if (caseName === 'roundtrip') {
  makeChunk = () => Array.from({ length: CHUNK }, () => RESPONSE_TYPES[counter++ % RESPONSE_TYPES.length]);
  body = (type) => {
    const parsed = parse(type);
    parsed.parameters.charset = 'utf-8';
    return format(parsed).length;
  };
} else {
  throw new Error(`unknown case ${caseName}`);
}

// CPU time (user + system, all threads: the process is pinned to one CPU), not wall time: on a
// shared machine the wall clock also counts the time other processes held the CPU.
function measure(count) {
  let elapsedMicros = 0;
  for (let done = 0; done < count; done += CHUNK) {
    const inputs = makeChunk();
    const start = process.cpuUsage();
    for (let i = 0; i < CHUNK; i++) sink += body(inputs[i]);
    const used = process.cpuUsage(start);
    elapsedMicros += used.user + used.system;
  }
  return (elapsedMicros * 1000) / (Math.ceil(count / CHUNK) * CHUNK);
}

measure(20 * CHUNK); // warm-up (for "uncached", with headers that are not measured again)
const ns = measure(iterations);
process.stdout.write(JSON.stringify({ ns, sink }) + '\n');
