// The layers and the direction of imports (docs/architecture.md). `npm test` runs `npm run check:deps`; a
// violation fails the suite. A folder imports only the folders before it in LAYERS; one forbidden rule per ordered
// pair is generated from that list, so a cycle between folders fails as surely as a cycle between files.
//   generated/          types, validators and the route table derived from spec/ (npm run generate)
//   packages/core/      the pure localization core: formats, ICU, languages, gates, snapshots, delivery rendering
//   packages/client/    the typed SDK; packages/runtime/ the runtime client; packages/cli/ the CLI and MCP server
//   server/infra/       database, migrations, object store, job queue, engines, logging, configuration
//   server/domain/<aggregate>/  plain functions over data, one folder per aggregate, in LAYERS order
//   server/http/        pipeline, contract, admission, API keys; route modules in server/http/routes/
//   server/web/         the dashboard
//   server/app/         the composition root: builds the app, the servers, the route map and the job registry
//   bench/, scripts/, test/  entry points, benchmarks and tests, on top

/** Bottom-up: each folder may import the ones before it, never one after it. */
const LAYERS = [
  'server/infra',
  'server/domain/project',
  'server/domain/terms',
  'server/domain/checks',
  'server/domain/catalog',
  'server/domain/billing',
  'server/domain/memory',
  'server/domain/delivery',
  'server/domain/sync',
  'server/domain/webhooks',
  'server/domain/publish',
  'server/domain/operations',
  'server/domain/fill',
  'server/domain/content',
  'server/domain/users',
  'server/http',
  'server/web',
  'server/app',
];

const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const folderOrder = LAYERS.flatMap((lower, i) =>
  LAYERS.slice(i + 1).map((upper) => ({
    name: `layer-order:${lower}-below-${upper}`,
    severity: 'error',
    comment: `${lower} is below ${upper} (LAYERS in .dependency-cruiser.cjs): move the shared part down instead.`,
    from: { path: `^${escapeRe(lower)}/` },
    to: { path: `^${escapeRe(upper)}/` },
  })),
);

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle makes two modules one; split the shared part into a module both import.',
      from: { path: '^(server|packages|bench|scripts)/' },
      to: { circular: true },
    },
    ...folderOrder,
    {
      name: 'core-is-pure',
      severity: 'error',
      comment:
        'packages/core takes plain data and returns plain data; the CLI and runtime client use it without the server.',
      from: { path: '^packages/core/' },
      to: { path: '^(server|bench|scripts|test|packages/(?!core/))/' },
    },
    {
      name: 'core-no-io',
      severity: 'error',
      comment: 'No database, object store, network or file system in the core.',
      from: { path: '^packages/core/' },
      to: {
        dependencyTypes: ['core', 'npm'],
        path: '^(fs|node:fs|net|node:net|http|node:http|https|node:https|knex|mysql2|better-sqlite3|@aws-sdk)',
      },
    },
    {
      name: 'packages-are-client-side',
      severity: 'error',
      comment: 'The packages run in browsers and CI: the contract (generated/) and the core only, never the server.',
      from: { path: '^packages/' },
      to: { path: '^(server|bench|scripts|test)/' },
    },
    {
      name: 'server-below-entry-points',
      severity: 'error',
      comment: 'The server never reaches up to the benchmarks, the scripts or the tests.',
      from: { path: '^server/' },
      to: { path: '^(bench|scripts|test)/' },
    },
    {
      name: 'route-modules-only-from-the-root',
      severity: 'error',
      comment: 'Route modules share domain modules, never each other: server/app/implementations.ts alone maps them.',
      from: { path: '^(server|packages|bench|scripts)/', pathNot: '^server/app/implementations\\.ts$' },
      to: { path: '^server/http/routes/' },
    },
    {
      name: 'dashboard-through-the-internal-api',
      severity: 'error',
      comment:
        'The dashboard reads and acts only through the internal API (server/web/api.ts, in-process), and knows people (server/domain/users/), never another aggregate.',
      from: { path: '^server/web/' },
      to: { path: '^server/domain/(?!users/)' },
    },
    {
      name: 'statuses-where-answered',
      severity: 'error',
      comment:
        "A refusal's HTTP status is read where it is answered (server/http/refusals.ts) and recorded (server/infra/requests.ts); server/domain throws Refusals, which carry none (docs/decisions/0023-domain-refusals.md).",
      from: {
        path: '^(server|packages|bench|scripts)/',
        pathNot: '^server/(http/refusals|infra/requests)\\.ts$',
      },
      to: { path: '^generated/errors\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'generated-is-a-leaf',
      severity: 'error',
      comment: 'generated/ is derived from spec/ and depends on none of our code.',
      from: { path: '^generated/' },
      to: { path: '^(server|packages|bench|scripts|test)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // The packages' build output (npm run build): the sources under packages/*/src are what the rules are about.
    exclude: { path: '^packages/[^/]+/dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.cjs', '.json'] },
  },
};
