// Migrations are listed here in order, so both dialects and every runner (tsx, tests) see the same set
// without a directory scan.
import type { Knex } from 'knex';
import * as m001 from './001_foundation.js';
import * as m002 from './002_translate.js';
import * as m003 from './003_sync.js';
import * as m004 from './004_publish.js';
import * as m005 from './005_prepared.js';
import * as m006 from './006_integrity.js';
import * as m007 from './007_fill_failures.js';
import * as m008 from './008_translations_job_index.js';
import * as m009 from './009_snapshot_parts.js';
import * as m010 from './010_operations.js';
import * as m011 from './011_dashboard_users.js';
import * as m012 from './012_webhooks.js';
import * as m013 from './013_content.js';
import * as m014 from './014_translation_history.js';
import * as m015 from './015_api_key_last_use.js';
import * as m018 from './018_sync_disabled_keys.js';
import * as m019 from './019_job_shares.js';
import * as m016 from './016_signin_throttle.js';
import * as m022 from './022_markup_origins.js';
import * as m023 from './023_daily_counts.js';
import * as m017 from './017_dashboard_flows.js';
import * as m026 from './026_outdated.js';
import * as m024 from './024_namespaces.js';
import * as m027 from './027_memory.js';
import * as m028 from './028_cell_checks.js';
import * as m029 from './029_terms.js';
import * as m030 from './030_guarded_fill.js';
import * as m033 from './033_user_deactivation.js';
import * as m034 from './034_key_comments.js';
import * as m035 from './035_content_unit_source.js';
import * as m036 from './036_key_screenshots.js';
import * as m037 from './037_translator_grants.js';
import * as m038 from './038_project_roles.js';

const all: Record<string, { up(db: Knex): Promise<void>; down(db: Knex): Promise<void> }> = {
  '001_foundation': m001,
  '002_translate': m002,
  '003_sync': m003,
  '004_publish': m004,
  '005_prepared': m005,
  '006_integrity': m006,
  '007_fill_failures': m007,
  '008_translations_job_index': m008,
  '009_snapshot_parts': m009,
  '010_operations': m010,
  '011_dashboard_users': m011,
  '012_webhooks': m012,
  '013_content': m013,
  '014_translation_history': m014,
  '015_api_key_last_use': m015,
  '018_sync_disabled_keys': m018,
  '019_job_shares': m019,
  '016_signin_throttle': m016,
  '022_markup_origins': m022,
  '017_dashboard_flows': m017,
  '023_daily_counts': m023,
  '026_outdated': m026,
  '024_namespaces': m024,
  '027_memory': m027,
  '028_cell_checks': m028,
  '029_terms': m029,
  '030_guarded_fill': m030,
  '033_user_deactivation': m033,
  '034_key_comments': m034,
  '035_content_unit_source': m035,
  '036_key_screenshots': m036,
  '037_translator_grants': m037,
  '038_project_roles': m038,
};

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations() {
    return Promise.resolve(Object.keys(all).sort());
  },
  getMigrationName(name) {
    return name;
  },
  getMigration(name) {
    return Promise.resolve(all[name]);
  },
};
