// Compile-only, with skipLibCheck off (tsconfig.fastify-compress-peer.json): our fastifyCompress
// declarations and @fastify/compress's own augment Fastify's route options and reply in one
// program without a conflict (an app moving over route by route, or a library with the peer).
import Fastify from 'fastify';
import peerCompress from '@fastify/compress';
import { fastifyCompress } from 'ssr-native/fastify';

const app = Fastify();
app.register(peerCompress, { threshold: 10 });
app.register(fastifyCompress, { threshold: 10, encodings: ['gzip'] });
app.get('/', { compress: { threshold: 1 }, decompress: { requestEncodings: ['gzip'] } }, (req, reply) =>
  reply.compress('x'),
);
