'use strict';
// Real stylesheets from npm beyond the corpus's seven (scripts/test-angular-versions.js installs
// them, at these versions, into the folder named by the third argument).
const REAL_SHEETS = {
  'bulma@1.0.4': 'css/bulma.css',
  '@fortawesome/fontawesome-free@7.3.1': 'css/all.css',
  'foundation-sites@6.9.0': 'dist/css/foundation.css',
  'primeflex@4.0.0': 'primeflex.css',
  'bootstrap-icons@1.13.2': 'font/bootstrap-icons.css',
  'animate.css@4.1.1': 'animate.css',
  'uikit@3.25.29': 'dist/css/uikit.css',
  'daisyui@5.8.1': 'daisyui.css',
  '@picocss/pico@2.1.1': 'css/pico.css',
  'open-props@1.7.23': 'open-props.min.css',
  '@ionic/core@9.0.5': 'css/ionic.bundle.css',
  'normalize.css@8.0.1': 'normalize.css',
  'milligram@1.4.1': 'dist/milligram.css',
  'spectre.css@0.5.9': 'dist/spectre.css',
  'tachyons@4.12.0': 'css/tachyons.css',
  'water.css@2.1.1': 'out/water.css',
  '@primer/css@22.3.2': 'dist/primer.css',
  'purecss@3.1.0': 'build/pure.css',
  'semantic-ui-css@2.5.0': 'semantic.css',
  'materialize-css@1.0.0': 'dist/css/materialize.css',
};

module.exports = { REAL_SHEETS };
