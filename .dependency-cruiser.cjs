// The layers and the direction of imports (README "Architecture"). `npm test` runs `npm run check:deps`; a
// violation fails the suite. From the bottom up:
//   generated/  types, validators and the route table derived from spec/ (npm run generate)
//   publisher/  the pure localization core: formats, ICU, languages, gates, snapshots, delivery rendering
//   handlers/platform/  infrastructure: database, object store, pipeline, jobs queue, engines, logging
//   handlers/<group>/   one API group each: domain modules, and route modules (routes.ts, *.routes.ts)
//   service/    the composition root: builds the app, the servers, the route map and the job registry
//   scripts/, test/     entry points and tests, on top
//   sdk/        the client side: generated/ and publisher/ only
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle makes two modules one; split the shared part into a module both import.',
      from: { path: '^(handlers|publisher|service|sdk|scripts)/' },
      to: { circular: true },
    },
    {
      name: 'publisher-is-pure',
      severity: 'error',
      comment:
        'publisher/ takes plain data and returns plain data; the CLI and runtime client use it without the server.',
      from: { path: '^publisher/' },
      to: { path: '^(handlers|service|scripts|sdk|test)/' },
    },
    {
      name: 'publisher-no-io',
      severity: 'error',
      comment: 'No database, object store, network or file system in the core.',
      from: { path: '^publisher/' },
      to: {
        dependencyTypes: ['core', 'npm'],
        path: '^(fs|node:fs|net|node:net|http|node:http|https|node:https|knex|mysql2|better-sqlite3|@aws-sdk)',
      },
    },
    {
      name: 'platform-is-below-groups',
      severity: 'error',
      comment: 'handlers/platform/ serves every group and imports none of them.',
      from: { path: '^handlers/platform/' },
      to: { path: '^(handlers/(?!platform/)|service/|scripts/|sdk/|test/)' },
    },
    {
      name: 'groups-below-the-root',
      severity: 'error',
      comment: 'An API group never reaches up to the composition root, the scripts or the tests.',
      from: { path: '^handlers/' },
      to: { path: '^(service|scripts|test)/' },
    },
    {
      name: 'route-modules-only-from-the-root',
      severity: 'error',
      comment:
        'Groups share domain modules, never route files: service/implementations.ts alone maps operationIds to handlers.',
      from: { path: '^(handlers|service|scripts|sdk|publisher)/', pathNot: '^service/implementations\\.ts$' },
      to: { path: '^handlers/[^/]+/[^/]*routes[.]ts$' },
    },
    {
      name: 'dashboard-only-from-the-root',
      severity: 'error',
      comment: 'The dashboard (handlers/dashboard/) is mounted by service/; no group, core or client imports it.',
      from: { path: '^(handlers/(?!dashboard/)|publisher/|sdk/|generated/)' },
      to: { path: '^handlers/dashboard/' },
    },
    {
      name: 'dashboard-through-the-internal-api',
      severity: 'error',
      comment:
        'The dashboard reads and acts only through the internal API (handlers/dashboard/api.ts, in-process): it imports the platform, never a group.',
      from: { path: '^handlers/dashboard/' },
      to: { path: '^handlers/(?!dashboard/|platform/)' },
    },
    {
      name: 'sdk-is-client-side',
      severity: 'error',
      comment: 'The SDK runs in browsers and CI: the contract (generated/) and the pure core (publisher/) only.',
      from: { path: '^sdk/' },
      to: { path: '^(handlers|service|scripts|test)/' },
    },
    {
      name: 'generated-is-a-leaf',
      severity: 'error',
      comment: 'generated/ is derived from spec/ and depends on none of our code.',
      from: { path: '^generated/' },
      to: { path: '^(handlers|publisher|service|scripts|sdk|test)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.cjs', '.json'] },
  },
};
