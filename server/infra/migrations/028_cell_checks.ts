import type { Knex } from 'knex';

// Stored quality-check results (docs/decisions/0025-stored-check-results.md, server/domain/checks/):
// - `cell_checks`: one row per translation cell, and per key's source (`lang` = the base language), that a check
//   reports anything for; a cell that passes every check has none. `errors`, `warnings`, `infos` count its results
//   by severity (the key list's and GET /checks' severity filters); `ids` lists `|check:severity|` once each (the
//   check filter, a LIKE); `results` is the JSON array of the results themselves, as the API shows them.
// - `project_checks`: a project's check settings (JSON), and the revision of what the checks read besides the cells
//   (settings, output formats, markup origins): `rev` moves on each change, `checked_rev` is the revision a finished
//   background re-check applied to every stored row, with what the checks read at it (`checked_context`, JSON: the
//   formats, origins and settings; null when not known), and `cursor_key` / `cursor_rev` how far a running one got.
//   A project without a row has the default settings and nothing to re-check.
// Projects that exist when this runs are re-checked once in the background, as after a settings change: their
// `project_checks` row starts at `rev` 1 and a `checks.recheck` job is queued for each (server/app/jobs.ts).
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('cell_checks', (t) => {
    t.bigInteger('key_id').notNullable();
    t.string('lang', 35).notNullable();
    t.string('project_id', 40).notNullable();
    t.integer('errors').notNullable().defaultTo(0);
    t.integer('warnings').notNullable().defaultTo(0);
    t.integer('infos').notNullable().defaultTo(0);
    t.text('ids').notNullable();
    t.text('results', 'mediumtext').notNullable();
    t.bigInteger('checked_at').notNullable();
    t.primary(['key_id', 'lang']);
    // A project's rows in key order (the re-check, GET /checks), and one language's (what a publish counts).
    t.index(['project_id', 'key_id']);
    t.index(['project_id', 'lang', 'key_id']);
  });
  await db.schema.createTable('project_checks', (t) => {
    t.string('project_id', 40).notNullable().primary();
    t.text('settings').notNullable();
    t.integer('rev').notNullable().defaultTo(0);
    t.integer('checked_rev').notNullable().defaultTo(0);
    t.text('checked_context').nullable();
    t.bigInteger('cursor_key').notNullable().defaultTo(0);
    t.integer('cursor_rev').notNullable().defaultTo(0);
    t.bigInteger('updated_at').notNullable();
  });
  const now = Date.now();
  const projects = await db('projects').whereNull('deleted_at').select('id');
  for (let i = 0; i < projects.length; i += 200) {
    const part = projects.slice(i, i + 200);
    await db('project_checks').insert(
      part.map((p) => ({ project_id: p.id, settings: '{}', rev: 1, checked_rev: 0, updated_at: now })),
    );
    await db('jobs').insert(
      part.map((p) => ({
        kind: 'checks.recheck',
        payload: JSON.stringify({ projectId: p.id }),
        state: 'queued',
        run_at: now,
        attempts: 0,
        max_attempts: 5,
        unique_key: `checks:${p.id}`,
        created_at: now,
        updated_at: now,
      })),
    );
  }
}

export async function down(db: Knex): Promise<void> {
  await db('jobs').where({ kind: 'checks.recheck' }).delete();
  await db.schema.dropTable('project_checks');
  await db.schema.dropTable('cell_checks');
}
