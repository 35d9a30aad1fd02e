import type { Knex } from 'knex';

// Content documents (docs/guides/content.md).
// - `content_docs` holds the current source: its text, its blocks (JSON: id, type, hash and offsets into the text,
//   server/domain/content/blocks.ts) and its fields. `revision` counts the source's changes (revisionId `r_<n>`) and is
//   the compare-and-set token of a push. `state_rev` counts every change a publish could see (source,
//   translations, stages); `published_state_rev` is its value when the served version was cut, so "pending" is
//   one comparison.
// - `content_units` holds one translation per (document, language, unit): a unit is a block id, `@title` or
//   `@field:<name>`. `source_hash` is the hash of the source it translates: a block whose hash changed reads
//   stale and its text is the candidate shown to reviewers until a run replaces it. `gave_up` marks a unit a run
//   could not translate without breaking its markup (retried only with `force`).
// - `content_langs`: the review stage per document language, the run going (its job and hold), the last run's
//   reports.
// - `content_versions`: immutable snapshots (JSON) of what a publish froze, named `YYYY.MM.DD.N`, with the small
//   summary the listing reads (so a listing never parses whole documents).
// - `daily_counts`: the per-project daily quotas (pushes, runs), one conditional increment each.
// - `idempotency_keys`: `Idempotency-Key` of POST /content and of content runs; `processing` until the first
//   request's transaction commits its answer.
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('content_docs', (t) => {
    t.string('project_id', 40).notNullable();
    t.string('doc_id', 64).notNullable();
    t.text('title').notNullable();
    t.string('format', 12).notNullable();
    t.string('base_lang', 35).notNullable();
    t.string('external_id', 255).nullable();
    t.text('fields').notNullable();
    t.text('text', 'mediumtext').nullable();
    t.text('blocks', 'mediumtext').notNullable();
    t.string('health', 200).nullable();
    t.integer('revision').notNullable();
    t.integer('state_rev').notNullable();
    t.string('published_version', 20).nullable();
    t.bigInteger('published_at').nullable();
    t.integer('published_state_rev').nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.primary(['project_id', 'doc_id']);
  });
  await db.schema.createTable('content_units', (t) => {
    t.string('project_id', 40).notNullable();
    t.string('doc_id', 64).notNullable();
    t.string('lang', 35).notNullable();
    t.string('unit_id', 80).notNullable();
    t.string('source_hash', 64).notNullable();
    t.text('text', 'mediumtext').nullable();
    t.boolean('gave_up').notNullable().defaultTo(false);
    t.bigInteger('updated_at').notNullable();
    t.primary(['project_id', 'doc_id', 'lang', 'unit_id']);
  });
  await db.schema.createTable('content_langs', (t) => {
    t.string('project_id', 40).notNullable();
    t.string('doc_id', 64).notNullable();
    t.string('lang', 35).notNullable();
    t.string('stage', 12).nullable();
    t.string('run_id', 40).nullable();
    t.bigInteger('run_hold_mc').notNullable().defaultTo(0);
    t.bigInteger('run_started_at').nullable();
    t.text('report', 'mediumtext').nullable();
    t.bigInteger('updated_at').notNullable();
    t.primary(['project_id', 'doc_id', 'lang']);
  });
  await db.schema.createTable('content_versions', (t) => {
    t.string('project_id', 40).notNullable();
    t.string('doc_id', 64).notNullable();
    t.string('version_id', 20).notNullable();
    t.string('publish_id', 40).notNullable();
    t.text('snapshot', 'longtext').notNullable();
    t.text('summary', 'mediumtext').notNullable();
    t.bigInteger('created_at').notNullable();
    t.primary(['project_id', 'doc_id', 'version_id']);
    t.index(['project_id', 'version_id']);
  });
  await db.schema.createTable('daily_counts', (t) => {
    t.string('project_id', 40).notNullable();
    t.string('kind', 20).notNullable();
    t.string('day', 10).notNullable();
    t.integer('n').notNullable();
    t.primary(['project_id', 'kind', 'day']);
  });
  await db.schema.createTable('idempotency_keys', (t) => {
    t.string('project_id', 40).notNullable();
    t.string('scope', 100).notNullable();
    t.string('idem_key', 255).notNullable();
    t.string('state', 12).notNullable();
    t.integer('status').nullable();
    t.text('response', 'mediumtext').nullable();
    t.bigInteger('lease_until').notNullable();
    t.bigInteger('created_at').notNullable();
    t.primary(['project_id', 'scope', 'idem_key']);
  });
}

export async function down(db: Knex): Promise<void> {
  for (const t of [
    'idempotency_keys',
    'daily_counts',
    'content_versions',
    'content_langs',
    'content_units',
    'content_docs',
  ])
    await db.schema.dropTableIfExists(t);
}
