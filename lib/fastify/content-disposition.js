'use strict';
// `attachment; filename=...` for reply.download(), as content-disposition 3's create(name) writes
// it (RFC 6266): a token or quoted ASCII filename when the name allows, else an ASCII fallback
// ('?' for each other character) plus filename* in UTF-8 (RFC 8187).
const ASCII_TEXT = /^[\x20-\x7e]*$/;
const NON_ASCII = /[^\x20-\x7e]/g;
const HEX_ESCAPE = /%[0-9A-Fa-f]{2}/;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const ATTR_CHAR_ESCAPES = /[\x00-\x20"'()*,/:;<=>?@[\\\]{}\x7f]/g;

function contentDisposition(filename) {
  if (ASCII_TEXT.test(filename) && !HEX_ESCAPE.test(filename))
    return 'attachment; filename=' + parameterValue(filename);
  return (
    'attachment; filename=' +
    parameterValue(filename.replace(NON_ASCII, '?')) +
    "; filename*=UTF-8''" +
    encodeURIComponent(filename).replace(ATTR_CHAR_ESCAPES, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase())
  );
}

// a token as it is, else a quoted-string with '"' and '\' escaped
function parameterValue(str) {
  if (str.length === 0) return '""';
  if (TOKEN.test(str)) return str;
  return '"' + str.replace(/["\\]/g, '\\$&') + '"';
}

module.exports = contentDisposition;
