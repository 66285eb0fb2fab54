'use strict';
// The README's Angular server.ts compiles against the package's declarations: the ```ts block
// that imports @angular/ssr/node is written as it stands beside a tsconfig like the one
// `ng new --ssr` generates (strict, bundler resolution, esModuleInterop) and type-checked, so a
// renamed export, a changed signature or an option the declarations do not know breaks this
// test instead of the newcomer's build. @angular/ssr is not installed here: the three names the
// server takes from it are declared below with the signatures Angular 21 ships.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

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
