import type { Knex } from 'knex';

// The guarded AI fill (docs/decisions/0027-guarded-fill.md, docs/guides/translation.md):
// - `projects.fill_instructions`: the style guide the engine is told with every batch, as JSON text
//   `{"project": "...", "languages": {"de": "..."}}` (null: none); edited in the dashboard (internalUpdateProject).
// - `projects.ai_review_below`: the least score (per mille) an AI value is published with while no person reviewed
//   it; null: every AI value is published.
// - `translations.ai_score` (per mille) and `ai_reason`: how sure the fill is of the value it stored and why; they
//   describe the cell only while its origin is `ai` (a person's edit or an import makes them stale, and reads
//   ignore them then).
// - `fill_jobs.prompt_tokens`, `completion_tokens`, `engine_requests`: what the engine reported using for a job
//   (the dashboard's cost per 1,000 strings).
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('projects', (t) => {
    t.text('fill_instructions').nullable();
    t.integer('ai_review_below').nullable();
  });
  await db.schema.alterTable('translations', (t) => {
    t.integer('ai_score').nullable();
    t.string('ai_reason', 500).nullable();
  });
  await db.schema.alterTable('fill_jobs', (t) => {
    t.bigInteger('prompt_tokens').notNullable().defaultTo(0);
    t.bigInteger('completion_tokens').notNullable().defaultTo(0);
    t.integer('engine_requests').notNullable().defaultTo(0);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('fill_jobs', (t) => {
    t.dropColumn('prompt_tokens');
    t.dropColumn('completion_tokens');
    t.dropColumn('engine_requests');
  });
  await db.schema.alterTable('translations', (t) => {
    t.dropColumn('ai_score');
    t.dropColumn('ai_reason');
  });
  await db.schema.alterTable('projects', (t) => {
    t.dropColumn('fill_instructions');
    t.dropColumn('ai_review_below');
  });
}
