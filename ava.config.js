// AVA's settings (npm test runs it through scripts/test.ts). Each test file is a process of its own
// (workerThreads: false), TypeScript through tsx.
//
// The longest files start first: a pass runs a few files at once, and a long file that starts last keeps the pass
// open alone after every other file has ended. The order is by their measured length
// (docs/decisions/0012-test-tiers.md); the rest follow by name.
const LONGEST_FIRST = [
  'route-fuzz',
  'webhooks',
  'sync-fuzz',
  'dashboard-signin',
  'crash',
  'dashboard-keys',
  'dashboard-publish',
  'prepared',
  'dashboard-content',
  'edit-conflicts',
  'dashboard-flows',
  'dashboard-admin',
  'runtime-client-browser',
  'lean-get',
  'sync-disabled',
  'integrity',
  'reserved-names',
  'delivery-cors',
  'publish-threads',
  'gettext-runtime',
  'publish',
  'packages',
];

const rank = (file) => {
  const name = file.replace(/^.*[\\/]/, '').replace(/\.test\.ts$/, '');
  const i = LONGEST_FIRST.indexOf(name);
  return i === -1 ? LONGEST_FIRST.length : i;
};

export default {
  extensions: { ts: 'module' },
  nodeArguments: ['--import=tsx'],
  timeout: '3m',
  workerThreads: false,
  sortTestFiles: (a, b) => rank(a) - rank(b) || a.localeCompare(b),
};
