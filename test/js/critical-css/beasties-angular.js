'use strict';
// The reference for the differential tests: beasties configured and extended the way each
// Angular runs it. 0.4 (Angular 21): as its InlineCriticalCssProcessor (@angular/ssr, angular-cli
// packages/angular/ssr/src/utils/inline-critical-css.ts) configures and extends it: the same
// options, the stylesheet read through an overridden readFile, and the CSP-nonce handling of
// its embedLinkedStylesheet override (written here from its documented behaviour). 0.5 (Angular
// 22.2): plain options (angular22Processor). scripts/angular-processor-check.js checks both
// against the installed Angulars' own processors.
const fs = require('fs');

const MEDIA_SET_HANDLER_PATTERN = /^this\.media=["'](.*)["'];?$/;
const CSP_MEDIA_ATTR = 'ngCspMedia';
const LINK_LOAD_SCRIPT_CONTENT = `(() => {
  const CSP_MEDIA_ATTR = '${CSP_MEDIA_ATTR}';
  const documentElement = document.documentElement;

  // Listener for load events on link tags.
  const listener = (e) => {
    const target = e.target;
    if (
      !target ||
      target.tagName !== 'LINK' ||
      !target.hasAttribute(CSP_MEDIA_ATTR)
    ) {
      return;
    }

    target.media = target.getAttribute(CSP_MEDIA_ATTR);
    target.removeAttribute(CSP_MEDIA_ATTR);

    if (!document.head.querySelector(\`link[\${CSP_MEDIA_ATTR}]\`)) {
      documentElement.removeEventListener('load', listener);
    }
  };

  documentElement.addEventListener('load', listener, true);
})();`;

// The beasties each Angular major runs: @angular/ssr 21.2 bundles 0.4.1 (third_party/beasties)
// and @angular/build 21 depends on 0.4.1; @angular/build 22.2 and later depend on 0.5.4.
const BEASTIES_PACKAGES = { 0.4: 'beasties041', 0.5: 'beasties' };

async function loadBeasties(version = '0.5') {
  const name = BEASTIES_PACKAGES[version];
  if (!name) throw new RangeError(`no beasties ${version} reference`);
  // require, not import(): a local run may resolve the alias through NODE_PATH.
  const mod = require(name);
  return mod.default || mod;
}

// Angular 22.2's beasties: CommonEngine's processor and @angular/build's build-time inliner
// (inline-critical-css.js) give beasties 0.5.4 these options and override nothing but readFile:
// `preload: 'media-script'` and beasties' own `nonce` option in place of Angular 21's CSP override.
// The options both majors give beasties.
function angularOptions({ path, publicPath, minify }) {
  return {
    logger: { warn: () => {}, error: () => {}, info: () => {} },
    logLevel: 'warn',
    path,
    publicPath,
    compress: minify,
    pruneSource: false,
    reduceInlineStyles: false,
    mergeStylesheets: false,
    noscriptFallback: true,
    inlineFonts: true,
  };
}

function angular22Processor(Beasties, { path, publicPath, minify, readFile }) {
  const processor = new Beasties({
    ...angularOptions({ path, publicPath, minify }),
    preload: 'media-script',
    nonce: (document) => {
      const nonceElement = document.querySelector('[ngCspNonce], [ngcspnonce]');
      const cspNonce = nonceElement?.getAttribute('ngCspNonce') || nonceElement?.getAttribute('ngcspnonce');
      return cspNonce ?? undefined;
    },
  });
  processor.readFile = (file) => (readFile ? Promise.resolve(readFile(file)) : fs.promises.readFile(file, 'utf-8'));
  return processor;
}

async function createAngularProcessor({ path, publicPath, minify = false, readFile, beasties = '0.5' }) {
  const Beasties = await loadBeasties(beasties);
  if (beasties === '0.5') return angular22Processor(Beasties, { path, publicPath, minify, readFile });
  class AngularBeasties extends Beasties {
    constructor() {
      super({ ...angularOptions({ path, publicPath, minify }), preload: 'media' });
      this.addedCspScriptsDocuments = new WeakSet();
      this.documentNonces = new WeakMap();
    }

    readFile(file) {
      if (readFile) return Promise.resolve(readFile(file));
      return fs.promises.readFile(file, 'utf-8');
    }

    async embedLinkedStylesheet(link, document) {
      if (link.getAttribute('media') === 'print' && link.next?.name === 'noscript') {
        const media = link.getAttribute('onload')?.match(MEDIA_SET_HANDLER_PATTERN);
        if (media) {
          link.removeAttribute('onload');
          link.setAttribute('media', media[1]);
          link?.next?.remove();
        }
      }
      const returnValue = await super.embedLinkedStylesheet(link, document);
      const cspNonce = this.findCspNonce(document);
      if (cspNonce) {
        const beastiesMedia = link.getAttribute('onload')?.match(MEDIA_SET_HANDLER_PATTERN);
        if (beastiesMedia) {
          link.removeAttribute('onload');
          link.setAttribute(CSP_MEDIA_ATTR, beastiesMedia[1]);
          this.conditionallyInsertCspLoadingScript(document, cspNonce, link);
        }
        document.head.children.forEach((child) => {
          if (child.tagName === 'style' && !child.hasAttribute('nonce')) {
            child.setAttribute('nonce', cspNonce);
          }
        });
      }
      return returnValue;
    }

    findCspNonce(document) {
      if (this.documentNonces.has(document)) return this.documentNonces.get(document);
      const nonceElement = document.querySelector('[ngCspNonce], [ngcspnonce]');
      const cspNonce = nonceElement?.getAttribute('ngCspNonce') || nonceElement?.getAttribute('ngcspnonce') || null;
      this.documentNonces.set(document, cspNonce);
      return cspNonce;
    }

    conditionallyInsertCspLoadingScript(document, nonce, link) {
      if (this.addedCspScriptsDocuments.has(document)) return;
      if (document.head.textContent.includes(LINK_LOAD_SCRIPT_CONTENT)) {
        this.addedCspScriptsDocuments.add(document);
        return;
      }
      const script = document.createElement('script');
      script.setAttribute('nonce', nonce);
      script.textContent = LINK_LOAD_SCRIPT_CONTENT;
      document.head.insertBefore(script, link);
      this.addedCspScriptsDocuments.add(document);
    }
  }
  return new AngularBeasties();
}

module.exports = { createAngularProcessor, LINK_LOAD_SCRIPT_CONTENT, BEASTIES_PACKAGES };
