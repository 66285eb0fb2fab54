'use strict';
// The one rule for "may this response be shared with other visitors", used by everything that
// shares: the response cache (lib/cache/engine.js) and the compression dictionary learner
// (lib/compression/dictionary-learner.js). It reads the request and the response head actually
// sent. At its strictest (the dictionary, always; the cache by default) a request with Cookie,
// Authorization or a body is never a source, and a response is a source only if a shared cache
// would store it and serve it without revalidation: an allowed status, a positive lifetime
// (s-maxage, max-age or Expires), no private / no-store / no-cache, no Set-Cookie, no Vary: *.
// The cache's opt-ins (`cookies`, `authorization`, `defaultTtl`) loosen it for the cache alone.
const rules = require('./cache-rules');

const STRICTEST = Object.freeze({ statuses: rules.DEFAULT_STATUSES, defaultTtl: 0 });

// RFC 9110 6.4.1 / 8.6: a request has content when it says Content-Length > 0 or any
// Transfer-Encoding. A GET/HEAD body is input the URL does not show, so it is never keyed.
function hasBody(headers) {
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  if (length === undefined) return false;
  const text = rules.headerText(length).trim();
  return !/^0+$/.test(text); // anything but a plain zero (even an unparseable length) counts as a body
}

function allows(opt, req) {
  return opt === true || (typeof opt === 'function' && Boolean(opt(req)));
}

/**
 * Why a request may not feed anything shared, or undefined when it may. `req`: { method,
 * headers } (Node's lower-case headers). `policy.cookies` / `policy.authorization`: true or a
 * function of `req` to let such requests through (the cache's opt-ins); absent: refused.
 */
function whyRequestNotShareable(req, policy = STRICTEST) {
  if (!rules.isCacheableMethod(req.method)) return 'method';
  const headers = req.headers;
  if (hasBody(headers)) return 'body';
  if (headers.cookie !== undefined && !allows(policy.cookies, req)) return 'cookie';
  if (headers.authorization !== undefined && !allows(policy.authorization, req)) return 'authorization';
  return undefined;
}

/**
 * The response half, on the head as sent (`headers`: lower-case map). Returns { why } when the
 * response may not be shared, else { lifetime } (seconds, > 0). `authorized`: the request carried
 * Authorization (RFC 9111 3.5). `policy.defaultTtl`: the lifetime of a response that gives none.
 */
function responseShareability(status, headers, { authorized = false, policy = STRICTEST } = {}) {
  const cc = rules.parseCacheControl(headers['cache-control']);
  const why = rules.whyNotStorable(status, headers, cc, {
    statuses: policy.statuses || rules.DEFAULT_STATUSES,
    authorized,
  });
  if (why !== undefined) return { why, cc };
  let lifetime = rules.freshnessLifetime(headers, cc);
  if (lifetime === undefined) lifetime = policy.defaultTtl || 0;
  if (!(lifetime > 0)) return { why: 'no-lifetime', cc }; // must-revalidate with max-age=0 lands here
  return { why: undefined, lifetime, cc };
}

/**
 * Both halves: undefined when the response to `req` may be shared, else the reason.
 * `res`: { status, headers } as sent.
 */
function whyNotShareable(req, res, policy = STRICTEST) {
  const why = whyRequestNotShareable(req, policy);
  if (why !== undefined) return why;
  return responseShareability(res.status, res.headers, {
    authorized: req.headers.authorization !== undefined,
    policy,
  }).why;
}

function mayShare(req, res, policy = STRICTEST) {
  return whyNotShareable(req, res, policy) === undefined;
}

module.exports = { STRICTEST, hasBody, whyRequestNotShareable, responseShareability, whyNotShareable, mayShare };
