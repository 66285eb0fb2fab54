// The same entry points through the ESM wrappers.
import ssrDefault, { etag, crc32 } from 'ssr-native';
import { etag as koaEtag, conditional } from 'ssr-native/koa';

const a: string = etag('x');
const b: number = crc32(Buffer.alloc(1));
const c: string = ssrDefault.etag('y');
koaEtag();
conditional();

export { a, b, c };
