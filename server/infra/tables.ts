// Every table's row as the database hands it back (the columns of migrations/, all of them applied), declared to
// Knex once: `db('keys')` is then typed, its rows, its where objects, its inserts and updates. A query over an
// aliased table or a join is not (Knex cannot see through `keys as k`): name its result type at the call.
//
// How values come back, on both databases:
// - BIGINT (timestamps in epoch milliseconds, credits, ids): a number, except that mysql2 (supportBigNumbers)
//   answers a string for a value past 2^53. Read them through Number().
// - BOOLEAN: written true/false, read back 0/1. Read them through bool() (db.ts).
// - JSON: stored as text. Read it through parseJson() (db.ts).

/** A BIGINT column: read through Number(). */
export type Int64 = number | string;

/** A BOOLEAN column: written true/false, read back 0/1; read through bool(). */
export type Flag = boolean | number;

/** JSON stored as text: read through parseJson(). */
type JsonText = string;

export interface WorkspaceRow {
  id: string;
  name: string;
  balance_mc: Int64;
  /** Credits reserved by queued fills; available = balance_mc - held_mc. */
  held_mc: Int64;
  require_approval: Flag;
  spending_cap_mc: Int64 | null;
  /** The UTC month (YYYY-MM) spent_mc counts. */
  spent_month: string | null;
  spent_mc: Int64;
  key_limit: number | null;
  document_limit: number | null;
  created_at: Int64;
  updated_at: Int64;
}

export interface ProjectRow {
  id: string;
  workspace_id: string;
  name: string;
  handle: string;
  slug: string;
  base_lang: string;
  mode: 'a' | 'b';
  auto_verify: Flag;
  content_enabled: Flag;
  cost_warning_mc: Int64 | null;
  delivery_host: string | null;
  /** Origins a translated link may point to (JSON array; packages/core/src/markup.ts), null for none. */
  markup_origins?: JsonText | null;
  /** What a changed source does to its translations (migration 026): keep (marked outdated) or retranslate. */
  outdated_mode?: string;
  /** The project's translation memory (migration 027): `shared`, `isolated` or `off`. */
  memory_sharing?: string;
  /** Whether a match of 100 or 101 fills a pair before the AI fill is planned. */
  memory_pretranslate?: Flag;
  /** The least score of a fuzzy match sent to the engine as a reference. */
  memory_threshold?: number;
  /** The fill's style guide, JSON `{project, languages}` (migration 030). */
  fill_instructions?: JsonText | null;
  /** AI values scored below this (per mille) wait for a person's review before they are published. */
  ai_review_below?: number | null;
  /** Ordered list of configured output format ids. */
  output_formats: JsonText;
  /** The compare-and-set token of the configuration. */
  config_version: number;
  current_version: string | null;
  /** The version whose manifest the object store was last seen to hold. */
  manifest_version: string | null;
  created_at: Int64;
  updated_at: Int64;
  deleted_at: Int64 | null;
}

interface ProjectLanguageRow {
  project_id: string;
  code: string;
  fill_mode: 'ai' | 'manual';
  removed_at: Int64 | null;
  created_at: Int64;
  updated_at: Int64;
}

export interface ApiKeyRow {
  id: string;
  project_id: string;
  name: string | null;
  /** SHA-256 of the whole key, hex. */
  secret_hash: string;
  scopes: JsonText;
  requires_operation_approval: Flag;
  created_at: Int64;
  revoked_at: Int64 | null;
  /** When the public API last admitted the key, written at most once a minute (apikeys.ts noteKeyUse). */
  last_used_at: Int64 | null;
}

interface EventRow {
  id: string;
  project_id: string;
  type: string;
  payload: JsonText;
  created_at: Int64;
}

interface RateWindowRow {
  project_id: string;
  window_start: Int64;
  count: number;
}

export interface JobRow {
  id: Int64;
  kind: string;
  payload: JsonText;
  /** queued, running, done, failed */
  state: string;
  run_at: Int64;
  attempts: number;
  max_attempts: number;
  locked_by: string | null;
  locked_until: Int64 | null;
  last_error: string | null;
  unique_key: string | null;
  /** Whose share of a worker's window the job runs in (jobs.ts runsConcurrently); null for kinds without shares. */
  share_key: string | null;
  created_at: Int64;
  updated_at: Int64;
  finished_at: Int64 | null;
}

export interface KeyRow {
  id: Int64;
  project_id: string;
  name: string;
  /** Content token: hash of (ctx, source or forms). */
  token: string;
  source: string;
  /** Plural forms by category. */
  forms: JsonText | null;
  ctx: string | null;
  enabled: Flag;
  source_verified: Flag;
  captured: Flag;
  /** The push, sync or capture that inserted the row. */
  created_by: string | null;
  source_updated_at: Int64;
  created_at: Int64;
  updated_at: Int64;
  /** The key as the synced file spells it. */
  file_key: string | null;
  comment: string | null;
  /** Format-specific data the renderer needs to write the entry back. */
  meta: JsonText | null;
  /** When a sync disabled the key as an orphan of its file (migration 018); null once switched again. */
  sync_disabled_at?: Int64 | null;
  /** The synced file's name (else its format) of that sync. */
  sync_disabled_by?: string | null;
  /** The key's namespace (migration 024): `''` is the default one. */
  namespace?: string;
}

interface KeyHistoryRow {
  id: Int64;
  key_id: Int64;
  project_id: string;
  token: string;
  source: string;
  forms: JsonText | null;
  ctx: string | null;
  replaced_at: Int64;
}

export interface TranslationRow {
  key_id: Int64;
  lang: string;
  project_id: string;
  value: string | null;
  /** pending (a marker, no value yet), translated, reviewed, approved */
  status: string;
  /** ai, import, edit, memory */
  origin: string | null;
  /** The fill job a pending marker is queued on. */
  job_id: Int64 | null;
  updated_at: Int64;
  /** Why the marker's last fill failed (cleared when a job claims it). */
  fail_reason?: string | null;
  /** The key's token when the engine refused the pair itself: not queued again while the key keeps it. */
  fail_token?: string | null;
  /** When the key's source changed after this value was written (migration 026); null while it is current. */
  outdated_at?: Int64 | null;
  /** The file's value a sync kept out of the cell (migration 014); a person's save clears it. */
  conflict_value?: string | null;
  /** The fill's score of its value, per mille (migration 030); meaningful while `origin` is `ai`. */
  ai_score?: number | null;
  ai_reason?: string | null;
}

interface FillJobRow {
  id: Int64;
  tracking_token: string;
  project_id: string;
  workspace_id: string;
  status: string;
  estimated_mc: Int64;
  held_mc: Int64;
  charged_mc: Int64;
  total: number;
  translated: number;
  failed: number;
  created_at: Int64;
  updated_at: Int64;
  finished_at: Int64 | null;
  /** The operation whose budget the job reserved (migration 010), or null. */
  operation_id: string | null;
  /** What the engine reported using (migration 030). */
  prompt_tokens?: Int64;
  completion_tokens?: Int64;
  engine_requests?: number;
}

interface FillPairRow {
  job_id: Int64;
  key_id: Int64;
  lang: string;
  /** pending, translated, failed */
  state: string;
  cost_mc: number;
}

export interface RequestRecordRow {
  api_key_id: string;
  request_id: string;
  project_id: string;
  action: string;
  body_hash: string;
  /** processing, done, failed */
  state: string;
  lease_until: Int64 | null;
  recovery_version: number | null;
  status: number | null;
  /** The exact text of the first answer. */
  response: string | null;
  captured_response: string | null;
  tracking_token: string | null;
  orphaned: Flag;
  created_at: Int64;
  closed_at: Int64 | null;
  /** When the sweep stored the replay window as over (migration 010), so a simulated clock moves records too. */
  expired_at: Int64 | null;
}

interface ProjectCatalogRow {
  project_id: string;
  format: string;
  /** The namespace the file was synced into (migration 024; `''`: the default one). */
  namespace?: string;
  /** File-level data of the last synced file. */
  meta: JsonText;
  updated_at: Int64;
}

export interface VersionRow {
  project_id: string;
  /** YYYY.MM.DD.N */
  id: string;
  day: string;
  seq: number;
  label: string | null;
  snapshot_at: Int64;
  digest: string;
  formats: JsonText;
  key_count: number;
  /** [{code, isBase}], base first. */
  languages: JsonText;
  restored_from: string | null;
  all_approved: Flag;
  unapproved: JsonText | null;
  /** The manifest the version's delivery serves. */
  manifest: string | null;
  created_at: Int64;
}

interface ProjectContentRow {
  project_id: string;
  content_rev: Int64;
  changed_at: Int64 | null;
}

interface SnapshotBodyRow {
  project_id: string;
  digest: string;
  body: string;
}

interface SnapshotPartRow {
  project_id: string;
  digest: string;
  body: string;
  created_at: Int64;
}

interface SnapshotPartRefRow {
  project_id: string;
  head_digest: string;
  part_digest: string;
}

interface PreparedPublishRow {
  project_id: string;
  content_rev: Int64;
  /** The flags and output formats it was computed for. */
  params: JsonText;
  token: string;
  digest: string;
  summary: JsonText;
  created_at: Int64;
}

/** An operation (migration 010; server/domain/operations/store.ts). */
export interface OperationRow {
  id: string;
  project_id: string;
  api_key_id: string;
  /** translate, publish, rollback */
  action: 'translate' | 'publish' | 'rollback';
  /** pending_approval, approved, denied, expired, exhausted */
  state: 'pending_approval' | 'approved' | 'denied' | 'expired' | 'exhausted' | 'cancelled';
  scope: JsonText;
  reuse_key: string | null;
  equivalence: string;
  requested_mc: Int64;
  authorized_mc: Int64;
  reserved_mc: Int64;
  charged_mc: Int64;
  absorbed_mc: Int64;
  created_at: Int64;
  expires_at: Int64;
  approved_at: Int64 | null;
  last_used_at: Int64 | null;
  decided_by: string | null;
  decided_at: Int64 | null;
}

interface OperationSeatRow {
  id: Int64;
  operation_id: string;
  attempt_id: string;
  batch_index: number | null;
  api_key_id: string;
  request_id: string | null;
  live: number | null;
  outcome: string | null;
  created_at: Int64;
}

interface BatchPreviewRow {
  project_id: string;
  batch_sha256: string;
  /** JSON array of up to 5 source strings. */
  sample: JsonText;
  unit_count: number;
  /** The dry run's estimate for the batch, millicredits (migration 017; null before it). */
  estimate_mc?: Int64 | null;
  expires_at: Int64;
}

export interface WebhookRow {
  id: string;
  project_id: string;
  url: string;
  /** JSON array of event types. */
  events: JsonText;
  enabled: Flag;
  /** auto_failures, gone, or null. */
  disabled_reason: string | null;
  failure_count: number;
  secret: string;
  previous_secret: string | null;
  previous_expires_at: Int64 | null;
  created_at: Int64;
  updated_at: Int64;
}

export interface WebhookDeliveryRow {
  seq: Int64;
  id: string;
  webhook_id: string;
  project_id: string;
  event_id: string;
  event_type: string;
  publish_id: string | null;
  /** pending, delivered, failed (`delivering` is not stored: it is read from the claimed job, webhooks/store.ts) */
  status: string;
  attempts: number;
  next_attempt_at: Int64 | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Int64;
  updated_at: Int64;
}

interface ProjectLockRow {
  project_id: string;
  purpose: string;
}

export interface ContentDocRow {
  project_id: string;
  doc_id: string;
  title: string;
  format: 'markdown' | 'html' | 'plaintext';
  base_lang: string;
  external_id: string | null;
  /** JSON object: field name to source text. */
  fields: JsonText;
  /** The source; null until a push carries text (a run then answers 409 revision_missing). */
  text: string | null;
  /** JSON array of server/domain/content/store.ts StoredBlock. */
  blocks: JsonText;
  /** Why runs and publishes are refused (the source failed checks), or null. */
  health: string | null;
  revision: number;
  state_rev: number;
  published_version: string | null;
  published_at: Int64 | null;
  published_state_rev: number | null;
  created_at: Int64;
  updated_at: Int64;
}

export interface ContentUnitRow {
  project_id: string;
  doc_id: string;
  lang: string;
  /** A block id, `@title` or `@field:<name>`. */
  unit_id: string;
  source_hash: string;
  text: string | null;
  /** The source `text` was translated from (migrations/035_content_unit_source.ts); null on older rows. */
  source_text?: string | null;
  gave_up: Flag;
  updated_at: Int64;
}

export interface ContentLangRow {
  project_id: string;
  doc_id: string;
  lang: string;
  stage: 'translated' | 'reviewed' | 'approved' | null;
  run_id: string | null;
  run_hold_mc: Int64;
  run_started_at: Int64 | null;
  report: JsonText | null;
  updated_at: Int64;
}

export interface ContentVersionRow {
  project_id: string;
  doc_id: string;
  version_id: string;
  publish_id: string;
  /** JSON server/domain/content/versions.ts Snapshot. */
  snapshot: JsonText;
  /** JSON server/domain/content/versions.ts Summary. */
  summary: JsonText;
  created_at: Int64;
}

/** A distinct source of a memory (migration 027; server/domain/memory/). */
interface MemorySegmentRow {
  id: Int64;
  /** The workspace id (the shared memory of its projects) or an isolated project's id. */
  scope_id: string;
  source_lang: string;
  source: string;
  ctx: string | null;
  /** MySQL only: the hashed words its FULLTEXT index holds (SQLite keeps them in memory_fts). */
  tokens?: string | null;
  /** normalize.ts normKey of the normalised source. */
  norm_key: Int64;
  created_at: Int64;
}

/** A translation of a segment into one language (migration 027). */
interface MemoryEntryRow {
  id: Int64;
  segment_id: Int64;
  target_lang: string;
  /** The project it came from; null for an entry imported into the workspace's memory. */
  project_id: string | null;
  /** The key whose cell it mirrors; null for an imported entry. */
  key_id: Int64 | null;
  target: string;
  /** edit, ai, import, memory */
  origin: string;
  /** translated, reviewed, approved */
  status: string;
  updated_at: Int64;
}

/** A cell's (or a key's source's, `lang` = base) stored quality-check results (migration 028). */
interface CellCheckRow {
  key_id: Int64;
  lang: string;
  project_id: string;
  errors: number;
  warnings: number;
  infos: number;
  /** `|check:severity|` once each, for the check filter. */
  ids: string;
  /** JSON array of the results as the API shows them (server/domain/checks/compute.ts). */
  results: JsonText;
  checked_at: Int64;
}

/** A project's check settings and the revision of what the checks read (migration 028). */
interface ProjectCheckRow {
  project_id: string;
  settings: JsonText;
  rev: number;
  checked_rev: number;
  /** What the checks read at checked_rev (formats, origins, settings), JSON; null when not known. */
  checked_context: JsonText | null;
  cursor_key: Int64;
  cursor_rev: number;
  updated_at: Int64;
}

interface DailyCountRow {
  project_id: string;
  kind: string;
  day: string;
  n: number;
}

interface IdempotencyKeyRow {
  project_id: string;
  scope: string;
  idem_key: string;
  state: 'processing' | 'done';
  status: number | null;
  response: string | null;
  lease_until: Int64;
  created_at: Int64;
}

/** A termbase entry (migration 029): a workspace's (`project_id` null) or a project's own. */
export interface TermRow {
  id: string;
  workspace_id: string;
  project_id: string | null;
  lang: string;
  text: string;
  description: string | null;
  part_of_speech: string | null;
  forbidden: Flag;
  non_translatable: Flag;
  case_sensitive: Flag;
  abbreviation: Flag;
  /** Lower-cased text, description and translations, for the list's `q`. */
  search: string;
  /** What an import matches the entry by (server/domain/terms/store.ts identityOf). */
  identity: string;
  created_at: Int64;
  updated_at: Int64;
}

interface TermTranslationRow {
  term_id: string;
  lang: string;
  text: string;
}

declare module 'knex/types/tables.js' {
  interface Tables {
    workspaces: WorkspaceRow;
    projects: ProjectRow;
    project_languages: ProjectLanguageRow;
    api_keys: ApiKeyRow;
    events: EventRow;
    rate_windows: RateWindowRow;
    jobs: JobRow;
    keys: KeyRow;
    key_history: KeyHistoryRow;
    translations: TranslationRow;
    fill_jobs: FillJobRow;
    fill_pairs: FillPairRow;
    request_records: RequestRecordRow;
    project_catalogs: ProjectCatalogRow;
    versions: VersionRow;
    project_content: ProjectContentRow;
    snapshot_bodies: SnapshotBodyRow;
    snapshot_parts: SnapshotPartRow;
    snapshot_part_refs: SnapshotPartRefRow;
    prepared_publishes: PreparedPublishRow;
    project_locks: ProjectLockRow;
    operations: OperationRow;
    operation_seats: OperationSeatRow;
    batch_previews: BatchPreviewRow;
    webhooks: WebhookRow;
    webhook_deliveries: WebhookDeliveryRow;
    content_docs: ContentDocRow;
    content_units: ContentUnitRow;
    content_langs: ContentLangRow;
    content_versions: ContentVersionRow;
    daily_counts: DailyCountRow;
    idempotency_keys: IdempotencyKeyRow;
    terms: TermRow;
    term_translations: TermTranslationRow;
    memory_segments: MemorySegmentRow;
    memory_entries: MemoryEntryRow;
    cell_checks: CellCheckRow;
    project_checks: ProjectCheckRow;
  }
}
