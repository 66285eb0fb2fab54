'use strict';
// The cache work sharedMemoryStore does once per machine rather than once per process, through
// the segment every worker maps (lib/cache/engine.js asks for it as the store's `work` layer):
//
// - Background refreshes: a worker that meets a stale entry takes the segment's lock for
//   "refresh of that key" (the fill lock kind: a deadline, and a holder that died is replaced
//   at once, include/ssr_native/shared_cache.h); only the holder refreshes, the others serve the
//   stale page. The refresh's ticket is a record in the segment (144 random bits in its key), so
//   whichever worker the shared port hands the refresh request to takes it, once.
// - Hit-for-pass: a variant found unstorable is a small record in the segment until its
//   deadline (and, when it varies, its primary holds the Vary names), so every worker passes it
//   straight to the origin instead of queueing for its fill lock.
//
// These records live beside the entries under keys no request builds (a leading \u0002), with
// no target, primary or tag (purges by URL or tag leave them; a clear() drops them). Everything
// read back is checked: any process of this user can write the segment.
const crypto = require('crypto');
const { FIELD_NAME } = require('./entry-metadata');

const REFRESH = '\u0002refresh\n';
const TICKET = '\u0002ticket\n';
const PASS = '\u0002pass\n';
const EMPTY = Buffer.alloc(0);
const TICKET_FORM = /^[A-Za-z0-9_-]{24}$/;

class SharedMemoryWork {
  constructor(lazy) {
    this.lazy = lazy; // the store's LazySegmentStore: its `segment` is undefined under the fallback
  }

  // the segment's native cache, or undefined (not opened yet, or the per-process fallback)
  get native() {
    void this.lazy.current; // opens it at first use
    const segment = this.lazy.segment;
    return segment === undefined ? undefined : segment.native;
  }

  /** Whether this process shares its cache work (else the engine keeps it per process). */
  available() {
    return this.native !== undefined;
  }

  /** The machine-wide right to refresh `key` for `ms`: true for one process at a time. */
  lockRefresh(key, ms) {
    const native = this.native;
    return native !== undefined && native.lock(REFRESH + key, Date.now(), Math.max(1, Math.round(ms)));
  }

  unlockRefresh(key) {
    const native = this.native;
    if (native !== undefined) native.unlock(REFRESH + key);
  }

  /**
   * A ticket any worker of the machine takes back once: its value (sent in the refresh header),
   * or undefined when it could not be recorded (then the refresh is not sent).
   */
  issueTicket({ key, remoteAddress }, ms) {
    const native = this.native;
    if (native === undefined) return undefined;
    const id = crypto.randomBytes(18).toString('base64url');
    const until = Date.now() + ms;
    const meta = JSON.stringify({ key, remoteAddress: remoteAddress === undefined ? null : remoteAddress, until });
    return native.put(TICKET + id, '', '', '', meta, EMPTY, until) ? id : undefined;
  }

  /** The ticket `id` names ({ key, remoteAddress }), deleted as it is taken; else undefined. */
  takeTicket(id) {
    const native = this.native;
    if (native === undefined || !TICKET_FORM.test(id)) return undefined;
    const got = native.get(TICKET + id, 0, 0);
    // deleted by whoever takes it: a ticket sent twice (or raced) is honoured once
    if (!Array.isArray(got) || !native.delete(TICKET + id)) return undefined;
    const meta = parse(got[1]);
    if (meta === undefined || typeof meta.key !== 'string' || !(meta.until > Date.now())) return undefined;
    const remoteAddress = typeof meta.remoteAddress === 'string' ? meta.remoteAddress : undefined;
    return { key: meta.key, remoteAddress };
  }

  /** Forgets a ticket whose refresh ended (not taken: it never arrived). */
  dropTicket(id) {
    const native = this.native;
    if (native !== undefined) native.delete(TICKET + id);
  }

  /**
   * Records that `key` passes until `until` (the engine's clock); `names`: the Vary names of its
   * primary, recorded there too, so a request for another variant finds its own key.
   */
  setPass(primary, key, names, until) {
    const native = this.native;
    if (native === undefined) return;
    const expiresAt = Math.max(1, Math.ceil(until));
    if (names.length > 0 && key !== primary)
      native.put(PASS + primary, '', '', '', JSON.stringify({ vary: names, until: expiresAt }), EMPTY, expiresAt);
    native.put(PASS + key, '', '', '', JSON.stringify({ until: expiresAt }), EMPTY, expiresAt);
  }

  /**
   * Until when (the engine's clock) this request's variant passes: `key` is the one the request
   * built; when that is its primary and the primary's record names Vary headers, `variant(names)`
   * gives the variant's key. Undefined when none is recorded.
   */
  passUntil(primary, key, variant) {
    const native = this.native;
    if (native === undefined) return undefined;
    const record = read(native, PASS + key);
    if (record === undefined) return undefined;
    if (record.vary === undefined) return record.until;
    if (key !== primary) return undefined;
    const own = read(native, PASS + variant(record.vary));
    return own === undefined || own.vary !== undefined ? undefined : own.until;
  }

  /** The variant `key` is storable again: its record goes (looked for first: a look takes no lock). */
  deletePass(key) {
    const native = this.native;
    if (native !== undefined && native.get(PASS + key, 0, 0) !== undefined) native.delete(PASS + key);
  }
}

// { until, vary? } from a pass record, or undefined (absent, or not one of ours)
function read(native, key) {
  const got = native.get(key, 0, 0);
  if (!Array.isArray(got)) return undefined;
  const meta = parse(got[1]);
  if (meta === undefined || typeof meta.until !== 'number' || !Number.isFinite(meta.until)) return undefined;
  if (meta.vary === undefined) return { until: meta.until };
  const vary = meta.vary;
  if (!Array.isArray(vary) || vary.length === 0 || vary.length > 64) return undefined;
  for (const name of vary) if (typeof name !== 'string' || !FIELD_NAME.test(name)) return undefined;
  return { until: meta.until, vary };
}

function parse(text) {
  try {
    const value = JSON.parse(text);
    return value !== null && typeof value === 'object' ? value : undefined;
  } catch {
    return undefined;
  }
}

module.exports = { SharedMemoryWork };
