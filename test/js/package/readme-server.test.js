'use strict';
// The README's Angular server.ts compiles against the package's declarations: the ```ts block
// that imports @angular/ssr/node is written as it stands beside a tsconfig like the one
// `ng new --ssr` generates (strict, bundler resolution, esModuleInterop) and type-checked, so a
// renamed export, a changed signature or an option the declarations do not know breaks this
// test instead of the newcomer's build. @angular/ssr is not installed here: the three names the
// server takes from it are declared below with the signatures Angular 21 ships.
// Then the same server.ts runs as pasted (TypeScript's transpile, as the Angular CLI's build)
// with a stand-in for @angular/ssr/node that renders any URL as a public page, and shows what
// the README's "How to see it work" promises: a <style> in <head>, Age on a cache hit, an ETag
// and 304, and pages answered as dcz once enough public URLs were sampled.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const { spawn, spawnSync } = require('node:child_process');
const { request } = require('../helpers/http');
const { freePort, accepts } = require('../../../bench/http/lib/ports');

const root = path.join(__dirname, '..', '..', '..');
// inside the package, so 'ssr-native' resolves to this checkout by its own exports
const scratch = path.join(root, 'build', `readme-server-${process.pid}`);

const ANGULAR_SSR_NODE = `declare module '@angular/ssr/node' {
  import type { IncomingMessage, ServerResponse } from 'node:http';
  export class AngularNodeAppEngine {
    constructor(options?: object);
    handle(request: IncomingMessage, requestContext?: unknown): Promise<Response | null>;
  }
  export function createNodeRequestHandler<T>(handler: T): T;
  export function isMainModule(url: string): boolean;
  export function writeResponseToNodeResponse(source: Response, destination: ServerResponse): Promise<void>;
}
`;

function serverBlock() {
  const text = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const blocks = [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  const servers = blocks.filter((code) => code.includes("from '@angular/ssr/node'"));
  assert.equal(
    servers.length,
    1,
    `README.md has ${servers.length} \`\`\`ts server.ts blocks importing @angular/ssr/node`,
  );
  return servers[0];
}

test("the README's Angular server.ts type-checks against the package's declarations", () => {
  const code = serverBlock();
  for (const entry of ['ssr-native/compression', 'ssr-native/cache', 'ssr-native/angular']) {
    assert.ok(code.includes(`from '${entry}'`), `the server.ts imports ${entry}`);
  }
  fs.mkdirSync(scratch, { recursive: true });
  try {
    fs.writeFileSync(path.join(scratch, 'server.ts'), code);
    fs.writeFileSync(path.join(scratch, 'angular-ssr-node.d.ts'), ANGULAR_SSR_NODE);
    const tsconfig = {
      compilerOptions: {
        strict: true,
        noEmit: true,
        noImplicitReturns: true,
        noPropertyAccessFromIndexSignature: true,
        target: 'ES2022',
        module: 'preserve',
        moduleResolution: 'bundler',
        esModuleInterop: true,
        isolatedModules: true,
        skipLibCheck: true,
        types: ['node'],
      },
      files: ['server.ts', 'angular-ssr-node.d.ts'],
    };
    fs.writeFileSync(path.join(scratch, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
    const tsc = path.join(path.dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');
    const result = spawnSync(process.execPath, [tsc, '-p', scratch], { encoding: 'utf8' });
    assert.equal(result.status, 0, `tsc on the README's server.ts:\n${result.stdout}${result.stderr}`);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
});

// The stand-in for @angular/ssr/node: every URL renders a page with a long shared layout (what a
// learned dictionary holds) and its own content, marked shareable as a route's `headers` would.
const FAKE_ANGULAR_SSR_NODE = `import { pathToFileURL } from 'node:url';
const layout = Array.from({ length: 60 }, (_, i) => '<li class="nav-item"><a class="nav-link" href="/section/' + i + '">Section ' + i + '</a></li>').join('\\n');
export class AngularNodeAppEngine {
  async handle(req) {
    const html = '<!doctype html><html><head><title>Shop</title><link rel="stylesheet" href="styles.css"></head>' +
      '<body><nav><ul>\\n' + layout + '\\n</ul></nav><h1>Page ' + req.url + '</h1><main>' + req.url.repeat(20) + '</main></body></html>';
    return new Response(html, { headers: { 'content-type': 'text/html;charset=UTF-8', 'cache-control': 'public, s-maxage=60' } });
  }
}
export const createNodeRequestHandler = (handler) => handler;
export const isMainModule = (url) => url === pathToFileURL(process.argv[1]).href;
`;

async function waitForListen(child, port, output) {
  const deadline = Date.now() + 15000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    if (await accepts(port)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`the README's server.ts did not listen on ${port}:\n${output()}`);
}

test(
  "the README's Angular server.ts runs as pasted and shows what 'How to see it work' says",
  { timeout: 60000 },
  async () => {
    const ts = require('typescript');
    const code = serverBlock();
    const dir = `${scratch}-run`;
    fs.mkdirSync(path.join(dir, 'dist', 'server'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'dist', 'browser'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'node_modules', '@angular', 'ssr'), { recursive: true });
    let child;
    let output = '';
    try {
      const js = ts.transpileModule(code, {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      }).outputText;
      const server = path.join(dir, 'dist', 'server', 'server.mjs');
      fs.writeFileSync(server, js);
      fs.writeFileSync(path.join(dir, 'dist', 'browser', 'styles.css'), 'h1{color:teal}.unused{color:red}');
      const ssr = path.join(dir, 'node_modules', '@angular', 'ssr');
      fs.writeFileSync(
        path.join(ssr, 'package.json'),
        JSON.stringify({ name: '@angular/ssr', type: 'module', exports: { './node': './node.mjs' } }),
      );
      fs.writeFileSync(path.join(ssr, 'node.mjs'), FAKE_ANGULAR_SSR_NODE);

      const port = await freePort();
      child = spawn(process.execPath, [server], {
        cwd: dir,
        env: { ...process.env, PORT: String(port) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout.on('data', (c) => (output += c));
      child.stderr.on('data', (c) => (output += c));
      await waitForListen(child, port, () => output);
      const url = `http://127.0.0.1:${port}`;
      const host = { host: 'shop.example' }; // one of the README's allowedHosts

      const first = await request(`${url}/`, { headers: host });
      assert.equal(first.status, 200, output);
      const head = first.body.toString().split('</head>')[0];
      assert.match(head, /<style>[^<]*h1\{color:teal\}[^<]*<\/style>/, 'critical CSS inlined in <head>');
      assert.ok(!head.includes('.unused'), 'only the rules the page uses');
      assert.match(head, /<link rel="stylesheet" href="styles\.css" media="print"/, 'the stylesheet deferred');

      const hit = await request(`${url}/`, { method: 'HEAD', headers: host });
      assert.equal(hit.status, 200);
      assert.ok(hit.headers.age !== undefined, `Age on a cache hit: ${JSON.stringify(hit.headers)}`);
      assert.ok(hit.headers.etag, 'writeResponse tags the page');
      const notModified = await request(`${url}/`, { headers: { ...host, 'if-none-match': hit.headers.etag } });
      assert.equal(notModified.status, 304);

      // the README says: learned once 32 distinct public URLs were sampled
      let link;
      for (let i = 0; i < 32; i++) await request(`${url}/product/${i}`, { headers: host });
      for (let tries = 0; tries < 100 && !link; tries++) {
        link = (await request(`${url}/product/0`, { headers: host })).headers.link;
        if (!link) await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(link, `a dictionary Link after 32 public URLs\n${output}`);
      const dictionaryPath = /<([^>]+)>; rel="compression-dictionary"/.exec(link)[1];
      const dictionary = (await request(`${url}${dictionaryPath}`, { headers: host })).body;
      const hash = `:${crypto.createHash('sha256').update(dictionary).digest('base64')}:`;
      const dcz = await request(`${url}/product/99`, {
        headers: { ...host, 'accept-encoding': 'gzip, br, zstd, dcz', 'available-dictionary': hash },
      });
      assert.equal(dcz.status, 200);
      assert.equal(dcz.headers['content-encoding'], 'dcz');
    } finally {
      if (child) child.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
);
