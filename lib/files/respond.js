'use strict';
// respond(): the whole decision a static adapter applies once it has found a file, as a value.
// The adapters all took the same steps around files/answer.js: the in-memory compressed variant
// the request accepts, what the response must hold before the peer reads it (Vary, then the
// user's setHeaders), the peer's answer, and the bytes its span names. respond() takes them in
// that order and returns
//   { status, headers, span, file, body }
// `status`, `headers`, `span`: answer.js's. `file`: the representation answered (the record, its
// compressed variant, or what the adapter passed: a dcz delta, a file streamed from disk).
// `body`: the bytes to write (the file's Buffer, or the part a 206 names); undefined when the
// span is NONE or the file is not in memory (the adapter then streams the span itself).
// Each adapter applies the value its framework's way: node's res, Koa's ctx, Fastify's reply,
// Hono's context. Where their peers differ (which headers, conditional rules, HEAD) is the
// flavour's. A peer that sets Vary or calls setHeaders after its answer (@fastify/static, Hono's
// Vary) reads nothing off the response, so its adapter does those while applying the value.
const { answer, WHOLE, NONE } = require('./answer');
const { variantFileOf, statsOf } = require('./record');
const { varyAppend } = require('../http/vary');

/**
 * The answer `flavour` (answer.js) gives `request` for `record` (record.js). `response`: what the
 * response already holds (node's ServerResponse), for the flavours that read it and for
 * `prepare`; undefined for the others. `how` (one object per mount, so a warm hit allocates
 * nothing for it): { options (the flavour's), engine (the StaticEngine that holds the record's
 * compressed variants), prepare(response, source, vary) (sets, before the answer is made, what
 * the peer's answer reads: see prepareSend; `source` is the record, or the streamed file) }.
 * `file`: answer with this representation instead of the record or its variant (a delta, the
 * record plainly); it gets no Vary from here. A file streamed from disk has no record: `record`
 * is null and `file` carries its `path` and `stats` (fs.Stats-shaped, from the descriptor's
 * fstat) for `prepare`.
 */
function respond(flavour, request, response, record, how, file) {
  let vary = false;
  if (file === undefined) {
    file = record;
    vary = record.vary;
    if (record.compressible) {
      const variant = how.engine.variant(record, request.headers['accept-encoding']);
      if (variant !== undefined) file = variantFileOf(record, variant);
    }
  }
  if (how.prepare !== undefined) how.prepare(response, record ?? file, vary);
  const a = answer(flavour, request, file, how.options, response);
  const span = a.span;
  const bytes = file.body;
  const body =
    span === NONE || bytes === undefined
      ? undefined
      : span === WHOLE
        ? bytes
        : bytes.subarray(span.start, span.end + 1);
  return { status: a.status, headers: a.headers, span, file, body };
}

/**
 * The prepare step of the send-style peers (send under serve-static, koa-send), whose answer
 * reads the response's headers: Vary gains Accept-Encoding when the answer depends on it, then
 * the user's setHeaders(res, path, stats) may change what the answer then reads. `res`: node's
 * ServerResponse (Koa's ctx.res: ctx.set comes down to the same setHeader). `source`: a record
 * (record.js: its stats made once) or a streamed file, whose `stats` statsOf() returns as they are.
 */
function prepareSend(setHeaders) {
  return function prepare(res, source, vary) {
    if (vary) {
      const value = varyAppend(res.getHeader('Vary'));
      if (value !== undefined) res.setHeader('Vary', value);
    }
    if (setHeaders) setHeaders(res, source.path, statsOf(source));
  };
}

module.exports = { respond, prepareSend };
