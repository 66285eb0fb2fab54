// The same entry points through the ESM wrappers.
import ssrDefault, { etag, crc32 } from 'ssr-native';
import { etag as koaEtag, conditional, serve, send } from 'ssr-native/koa';

const a: string = etag('x');
const b: number = crc32(Buffer.alloc(1));
const c: string = ssrDefault.etag('y');
koaEtag();
conditional();
serve('public', { index: false, cache: serve('other').cache });
const sent: Promise<string | undefined> = send({} as Parameters<typeof send>[0], '/x', { root: 'public' });

export { a, b, c, sent };
