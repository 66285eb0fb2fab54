'use strict';
// The response writer of an AngularNodeAppEngine server alone, without the rendering: every
// request gets the Response AppEngine makes for a server-rendered page (a stream that delivers
// the finished HTML as one string, Content-Type text/html) over the fixture's 21 KB home page,
// written by Angular's writeResponseToNodeResponse (ANGULAR_WRITER=stock) or by ssr-native's
// writeResponse (ANGULAR_WRITER=ssr-native), both as installed in test/fixtures/angular-app.
const fs = require('fs');
const http = require('http');
const path = require('path');
const { pathToFileURL } = require('url');
const { APP, BROWSER } = require('../../../scripts/angular-fixture');
const { listen } = require('../lib/server');

async function main() {
  const page = fs.readFileSync(path.join(BROWSER, 'index.html'), 'utf8');
  const modules = path.join(APP, 'node_modules');
  let write;
  if (process.env.ANGULAR_WRITER === 'stock') {
    // Angular's packages are partially compiled: the JIT compiler must be loaded first
    await import(pathToFileURL(path.join(modules, '@angular/compiler/fesm2022/compiler.mjs')).href);
    const { writeResponseToNodeResponse } = await import(
      pathToFileURL(path.join(modules, '@angular/ssr/fesm2022/node.mjs')).href
    );
    write = (response, req, res) => writeResponseToNodeResponse(response, res);
  } else {
    write = require(path.join(modules, 'ssr-native/lib/angular')).writeResponse;
  }
  const headers = { 'content-type': 'text/html;charset=UTF-8' };
  listen(
    http.createServer((req, res) => {
      const body = new ReadableStream({
        start(controller) {
          controller.enqueue(page);
          controller.close();
        },
      });
      write(new Response(body, { status: 200, headers }), req, res);
    }),
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
