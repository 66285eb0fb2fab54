'use strict';
// The per-file record: what a cached file needs per response, computed once per file version
// (and per URL path that resolved to it), so a warm hit builds nothing.
const { extname } = require('path');
const mime = require('mime-types');
const { FileStats, lastModifiedOf } = require('./file-stats');
const { statTag: entityStatTag } = require('../etag');

/**
 * `result`: a FileCache hit/load with a body. `type`: the Content-Type (or, for Koa, the
 * extension koa-send gives ctx.type). `encoding`: of a precompressed sibling (.br/.gz) the
 * adapter chose, else undefined. `compressible`: in-memory variants may be made and chosen.
 */
function makeRecord(filePath, result, type, encoding, compressible) {
  return {
    path: filePath,
    file: result,
    body: result.body,
    size: result.body.length,
    etag: result.etag,
    type,
    encoding,
    compressible,
    vary: compressible, // the answer depends on Accept-Encoding (adapters with precompressed siblings say so too)
    lastModified: lastModifiedOf(result.stat), // rounded as fs.Stats rounds it
    variantFiles: undefined, // encoding -> the answer's file of an in-memory compressed variant (variantFileOf)
    stats: undefined, // fs.Stats-shaped, built on demand (statsOf) for setHeaders callbacks
    typeMemo: undefined, // a value an adapter derives from `type` once (Koa: the header ctx.type made)
    typeMemoOwner: undefined, // ... and what it was derived for (Koa: the app)
  };
}

/** fs.Stats-shaped view of a record's stat, made once. */
function statsOf(record) {
  return record.stats || (record.stats = new FileStats(record.file.stat));
}

/**
 * The file files/answer.js answers with when `record` goes out as its in-memory compressed
 * `variant` (files/encoding.js): made once per variant, so a warm hit builds nothing.
 */
function variantFileOf(record, variant) {
  const files = record.variantFiles || (record.variantFiles = {});
  let file = files[variant.encoding];
  if (file === undefined || file.body !== variant.body) {
    file = {
      body: variant.body,
      size: variant.body.length,
      etag: variant.etag,
      lastModified: record.lastModified,
      type: record.type,
      encoding: variant.encoding,
    };
    files[variant.encoding] = file;
  }
  return file;
}

/** send's Content-Type: mime-types by extension, application/octet-stream when unknown. */
function contentTypeOf(filePath) {
  return mime.contentType(extname(filePath)) || 'application/octet-stream';
}

/** @fastify/send's Content-Type: the type, with `; charset=utf-8` for text, JavaScript and JSON. */
function charsetContentTypeOf(filePath) {
  const type = mime.lookup(filePath) || 'application/octet-stream';
  return isUtf8MimeType(type) ? type + '; charset=utf-8' : type;
}

function isUtf8MimeType(type) {
  return (
    (type.length > 21 && type.startsWith('application/javascript')) ||
    (type.length > 14 && type.startsWith('application/json')) ||
    (type.length > 5 && type.startsWith('text/'))
  );
}

/** send's stat-based tag (etag@1.8.1 for fs.Stats: always weak), for files streamed from disk */
function statTag(stat) {
  return entityStatTag(stat, true);
}

module.exports = { makeRecord, variantFileOf, statsOf, contentTypeOf, charsetContentTypeOf, statTag };
