'use strict';
// The one decision of compression(options), shared by its two paths (the whole-body stage,
// compression-stage.js, and the streaming path, compression-stream.js): compression 1.8's
// onHeaders listener, step for step, since its order decides which headers a response gets
// (filter and no-transform, Vary, the dictionary headers, the threshold, an existing coding,
// HEAD, negotiation). Only a whole body may be answered with `dcz`: the dictionary choice needs
// the body's head as sent, and the learner needs the body.
const { compressible } = require('../http/compressible');
const { varyAcceptEncoding } = require('../http/vary');
const { dictionaryHeaders } = require('../compression/dictionary-headers');
const { whenHeadSent } = require('../http/sent-head');

const NO_TRANSFORM_REGEXP = /(?:^|,)\s*?no-transform\s*?(?:,|$)/i;
const ENFORCEABLE = ['gzip', 'deflate', 'identity', 'br'];
// The order in which the held response shows compression's dcz choice the cookie a session
// middleware sets at writeHead (the late-mark warning: dictionary-transport.js)
const LATE_MARK_ADVICE =
  'Mount compression({ dictionary: true }) before session middleware (express-session, ' +
  'cookie-session): headers set at writeHead by middleware mounted after it are seen before dcz is chosen';

/** The default filter: the response's Content-Type is compressible. */
function shouldCompress(req, res) {
  const type = res.getHeader('Content-Type');
  return type !== undefined && Boolean(compressible(type));
}

function shouldTransform(res) {
  const cacheControl = res.getHeader('Cache-Control');
  return !cacheControl || !NO_TRANSFORM_REGEXP.test(cacheControl);
}

/** The head of a body sent encoded: its coding, and no Content-Length (the encoded one differs). */
function markEncoded(res, coding) {
  res.setHeader('Content-Encoding', coding);
  res.removeHeader('Content-Length');
}

class CompressionDecision {
  /**
   * @param {object} settings what the factory made of its options: filter, threshold,
   *   enforceEncoding, negotiate, encoders, dictionaries (a DictionaryTransport or null)
   */
  constructor(settings) {
    this.filter = settings.filter;
    this.threshold = settings.threshold;
    this.enforceEncoding = settings.enforceEncoding;
    this.negotiate = settings.negotiate;
    this.encoders = settings.encoders;
    this.dictionaries = settings.dictionaries;
    // the answers without a dictionary, one per coding (no object made per response)
    this.choices = {};
    for (const coding of Object.keys(settings.encoders)) {
      this.choices[coding] = { coding, encoder: settings.encoders[coding], dictionary: null };
    }
  }

  /**
   * Decides the coding of the response's body on its head as it now is. Sets Vary and the
   * dictionary headers as the peer does; returns null (the body goes out as it is) or
   * { coding, encoder, dictionary } (dictionary: the one a `dcz` answer uses, else null; shared
   * between responses, not to be changed).
   * `length` is the body's length where known (undefined for a streamed body).
   */
  choose(req, res, length, whole) {
    if (!this.filter(req, res) || !shouldTransform(res)) return null;
    varyAcceptEncoding(res);
    const dictionaries = this.dictionaries;
    if (dictionaries !== null) dictionaryHeaders(dictionaries, res);
    if (Number(res.getHeader('Content-Length')) < this.threshold || length < this.threshold) return null;
    if ((res.getHeader('Content-Encoding') || 'identity') !== 'identity') return null;
    if (req.method === 'HEAD') return null;
    const header = req.headers['accept-encoding'];
    let coding = this.negotiate(header);
    if (!header && ENFORCEABLE.includes(this.enforceEncoding)) coding = this.enforceEncoding;
    if (dictionaries !== null && whole) {
      const dictionary = dictionaries.choose(header, req.headers['available-dictionary'], {
        req,
        status: res.statusCode,
        getHeader: (name) => res.getHeader(name),
      });
      if (dictionary !== null) return { coding: 'dcz', encoder: dictionary.encoder, dictionary };
    }
    if (!coding || coding === 'identity') return null;
    return this.choices[coding] || { coding, encoder: this.encoders[coding], dictionary: null };
  }

  /**
   * A whole body sent with dictionaries on: once the response has ended, the learner reads the
   * head it was sent with, and a dcz answer is checked for a mark set after the choice
   * (dictionary-transport.js).
   */
  learn(req, res, body, answeredWith = null) {
    const dictionaries = this.dictionaries;
    whenHeadSent(res, () => dictionaries.ended(req, res, body, answeredWith, LATE_MARK_ADVICE));
  }
}

module.exports = { CompressionDecision, shouldCompress, markEncoded };
