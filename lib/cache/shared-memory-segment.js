'use strict';
// Where sharedMemoryStore's segment lives, and opening it without ever taking the site down.
//
// The segment's name is predictable (`ssr-native-cache-<name>`), so in a folder every user may
// write (/dev/shm) another local user can plant something under it first: a file of theirs, a
// file of ours left open to others (0666), a FIFO, a symbolic link. The addon refuses each
// (src/core/own_file.cc, read from the open descriptor; nothing of another user's is read or
// mapped). A refusal, or a folder without room for the reservation, must not stop the app: the
// store falls back to a per-process memory store, and one warning says which file, whose, its
// mode and what to do. The default folder is one only this user can write when the environment
// names one ($XDG_RUNTIME_DIR, systemd's $RUNTIME_DIRECTORY), where no one else can plant anything.
const fs = require('fs');
const path = require('path');
const { SharedCache } = require('../native');

const FALLBACK_WARNING = 'SSR_NATIVE_SHARED_CACHE_FALLBACK';
const warned = new Set(); // segment paths this process has warned about (one warning each)

/**
 * The default folder: $XDG_RUNTIME_DIR, else the first of systemd's $RUNTIME_DIRECTORY, when it
 * is an absolute path to a directory of this user that no one else may write; else /dev/shm.
 * Every worker of a cluster inherits the environment, so they agree on it.
 */
function defaultDir(env = process.env) {
  const candidates = [env.XDG_RUNTIME_DIR, (env.RUNTIME_DIRECTORY || '').split(':')[0]];
  for (const dir of candidates) if (privateDir(dir)) return dir;
  return '/dev/shm';
}

function privateDir(dir) {
  if (typeof dir !== 'string' || !path.isAbsolute(dir)) return false;
  try {
    const st = fs.statSync(dir);
    const uid = typeof process.geteuid === 'function' ? process.geteuid() : st.uid;
    return st.isDirectory() && st.uid === uid && (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/**
 * Opens the segment: `{ native }`, or `{ reason }` (short, for stats().store) after one process
 * warning naming the file, what was found there and what to do.
 */
function openSegment({ file, maxBytes, maxEntries, persist }) {
  const room = roomFor(file, maxBytes);
  if (room !== undefined) return fallBack(file, `no room: ${room.sizes}`, room.sizes, room.advice);
  try {
    return { native: new SharedCache(file, maxBytes, maxEntries, persist) };
  } catch (err) {
    if (err === null || typeof err !== 'object' || err.code !== 'ERR_SSR_NATIVE_SHARED_CACHE') throw err;
    const found = describe(file);
    const refused = / refused|symbolic link/.test(err.message);
    const why = err.message
      .replace(/^ssr-native shared cache: /, '')
      .replace(`${file}: `, '')
      .replace(/^refused, /, '');
    if (!refused) return fallBack(file, `cannot open: ${why}`, `${why}`, CANNOT_OPEN_ADVICE);
    return fallBack(file, `refused: ${found}`, `refused (${found}): ${why}`, REFUSED_ADVICE);
  }
}

const REFUSED_ADVICE =
  'remove it if no process of this site uses it (if another user made it, find out why), or give sharedMemoryStore a dir only this user can write (the default is $XDG_RUNTIME_DIR or $RUNTIME_DIRECTORY when set)';
const CANNOT_OPEN_ADVICE =
  'give sharedMemoryStore a dir (a tmpfs) where this user may create files, with room for maxBytes';

/**
 * Why the segment's folder has no room for it ({ sizes, advice }), or undefined. Asked
 * only before the segment exists (an existing one has its room already); statfs where this Node
 * has it.
 */
function roomFor(file, maxBytes) {
  if (typeof fs.statfsSync !== 'function') return undefined;
  try {
    fs.lstatSync(file);
    return undefined;
  } catch {
    // absent (or not ours to look at): the reservation is made anew
  }
  let free;
  try {
    const st = fs.statfsSync(path.dirname(file));
    free = Number(st.bavail) * Number(st.bsize);
  } catch {
    return undefined; // the open says what is wrong with the folder
  }
  if (free >= maxBytes) return undefined;
  return {
    sizes: `${mib(free)} free in ${path.dirname(file)}, the segment reserves at least maxBytes (${mib(maxBytes)})`,
    advice: 'give a smaller maxBytes, or a dir with room (Docker: --shm-size; /run/user is about a tenth of RAM)',
  };
}

/** What is at `file`, as lstat sees it (never opened): its type, owner and mode. */
function describe(file) {
  let st;
  try {
    st = fs.lstatSync(file);
  } catch {
    return '';
  }
  const type = st.isSymbolicLink()
    ? 'a symbolic link'
    : st.isFIFO()
      ? 'a FIFO'
      : st.isFile()
        ? 'a file'
        : st.isDirectory()
          ? 'a directory'
          : st.isSocket()
            ? 'a socket'
            : 'a device';
  return `${type} owned by uid ${st.uid}, mode ${(st.mode & 0o7777).toString(8).padStart(4, '0')}`;
}

function fallBack(file, reason, detail, advice) {
  if (!warned.has(file)) {
    warned.add(file);
    process.emitWarning(
      `sharedMemoryStore: ${file}: ${detail}. This process keeps its pages in its own memory instead (workers do not share them). To share them: ${advice}.`,
      { code: FALLBACK_WARNING },
    );
  }
  return { reason };
}

function mib(bytes) {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

module.exports = { defaultDir, openSegment, FALLBACK_WARNING };
