// Compiled (not run) by test/js/package/package.test.js: the content-type 2.x drop-in's declarations.
import contentTypeV2 = require('ssr-native/content-type/v2');

const parsed: contentTypeV2.ContentType = contentTypeV2.parse('text/html; charset=utf-8');
const at: number = contentTypeV2.parse('a/b, c/d', { comma: true, start: 0, parameters: true }).index;
parsed.parameters.charset = 'utf-8';
const header: string = contentTypeV2.format(parsed);
const valid: boolean = contentTypeV2.isTypeValid('a/b') && contentTypeV2.isTokenValid('abc', 0, 2);
const size: number = contentTypeV2.configure({ cacheSize: 64 }).cacheSize;
contentTypeV2.clearCache();

// @ts-expect-error start is a number
contentTypeV2.parse('a/b', { start: '1' });

export { at, header, valid, size };

import register = require('ssr-native/register');
const swapped: Set<string> | undefined = register.active.static;
const part: register.Part = 'etag';
export { swapped, part };
