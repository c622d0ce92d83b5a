// Starts Browserless from its npm package with only the Chromium routes:
// its Chrome, Edge, Firefox and WebKit routes refuse to load without those browsers
// installed, and the pool test needs neither (Debian's Chromium serves).
import { Browserless } from '@browserless.io/browserless';

const browserless = new Browserless();
const keep = browserless.filterNonMacArm64Browsers.bind(browserless);
browserless.filterNonMacArm64Browsers = (route) =>
  keep(route) && !/^(Chrome|Edge|Firefox|Webkit|WebKit)[A-Z]/.test(route.browser?.name ?? '');
browserless.start();
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, async () => {
    await browserless.stop();
    process.exit(0);
  });
}
