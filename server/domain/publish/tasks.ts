// The CPU-heavy steps of a publish, restore and pull, one language at a time: the publish gates over a language's
// cells, and rendering a language's objects. They take and return plain data, so they run the same on a worker
// thread (pool.ts) as inline, and a worker holds the project's keys and one language, never the whole project.
import type { FormatId } from '../../../packages/core/src/catalog.js';
import { findCollisions } from '../../../packages/core/src/collisions.js';
import { poCollisions } from '../../../packages/core/src/formats/po.js';
import {
  renderFile,
  renderLanguage,
  type LanguageRender,
  type RenderedFile,
} from '../../../packages/core/src/delivery.js';
import { capList, rejectionLabel as label, REJECTED_CAP } from '../../../packages/core/src/gates.js';
import {
  digestOf,
  languageSnapshotInPlace,
  wholeSnapshot,
  type Part,
  type PartCell,
  type SnapshotHead,
} from '../../../packages/core/src/parts.js';
import { namespacesOf, namespaceView, snapshotCatalog } from '../../../packages/core/src/snapshot.js';
import { cellGate } from '../catalog/gate.js';
import { checkTranslation, type CheckContext } from '../checks/compute.js';
import type { LiveCells } from '../checks/read.js';

/**
 * The head travels as its stored body and digest: a thread parses a publish's head once and keeps it until another
 * head arrives. One, not more: a parsed head of 50,000 keys is tens of megabytes, and a publish's tasks all name the
 * same one (stream.ts `keys`).
 */
export interface HeadRef {
  digest: string;
  body: string;
}

const heads = new Map<string, SnapshotHead>();
function headOf(ref: HeadRef): SnapshotHead {
  let head = heads.get(ref.digest);
  if (!head) {
    head = JSON.parse(ref.body) as SnapshotHead;
    heads.clear();
    heads.set(ref.digest, head);
  }
  return head;
}

/** A cell the listing needs in key order across languages: its key's index and its label. */
export type Listed = [index: number, label: string];

/** The first REJECTED_CAP of lists gathered per language, in key order and then language order (as one pass over keys would list them). */
export function mergeListed(lists: Listed[][], cap = REJECTED_CAP): string[] {
  const all = lists.flatMap((l, langIndex) => l.map(([i, text]) => [i, langIndex, text] as const));
  all.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return capList(
    all.map((x) => x[2]),
    cap,
  );
}

/** One language's stored cells, columns aligned: the index of each cell's key in the head, and its fields. */
export interface LanguageRows {
  index: Int32Array;
  value: Array<string | null>;
  status: string[];
  imported: Uint8Array;
  /** The fill job a pending marker is queued on (0: none). */
  job: Float64Array;
  /** 1 for a value whose source changed since it was written (migration 026). */
  outdated: Uint8Array;
  /** The severities of the cell's stored check results, a bit each (server/domain/checks/read.ts MASK). */
  checks: Uint8Array;
}

/** Bits of CheckCounts' severities (server/domain/checks/read.ts MASK). */
const ERROR = 1;
const WARNING = 2;
const INFO = 4;

/** Cells of each severity (spec `CheckCounts`). */
export interface CheckCounts {
  error: number;
  warning: number;
  info: number;
}

const countInto = (c: CheckCounts, mask: number) => {
  if (mask & ERROR) c.error++;
  if (mask & WARNING) c.warning++;
  if (mask & INFO) c.info++;
};

interface GateInput {
  head: HeadRef;
  lang: string;
  mode: 'skip' | 'source';
  approvedOnly: boolean;
  /** Check gettext's collisions in this language (po is an output format). */
  po: boolean;
  /** The project's markup origins (config/projects.ts `markupPolicy`). */
  origins: string[];
  /** Leave out the cells a check reports an error for (the project's `blockPublishOnErrors`). */
  blockErrors?: boolean;
  rows: LanguageRows;
}

export interface GateOutput {
  /** The language's part (packages/core/src/parts.ts), as stored, and its digest. */
  body: string;
  digest: string;
  pending: number;
  /** Values taken into the part that are outdated. */
  outdated: number;
  markersByJob: Record<string, number>;
  icu: Listed[];
  icuTotal: number;
  markup: Listed[];
  markupTotal: number;
  unapproved: Listed[];
  unapprovedTotal: number;
  poGroups: Array<{ name: string; keys: string[] }>;
  /** Cells taken into the part with a check result of each severity. */
  checks: CheckCounts;
  /** Cells left out for a check error (blockErrors). */
  blocked: Listed[];
  blockedTotal: number;
}

/** The publish rules over one language's cells (spec: `publishVersion`): what enters the snapshot, and why not. */
function gateLanguage(input: GateInput): GateOutput {
  const head = headOf(input.head);
  const { lang, rows } = input;
  const part: Part = new Array<PartCell | null>(head.keys.length).fill(null);
  const out: GateOutput = {
    body: '',
    digest: '',
    pending: 0,
    outdated: 0,
    markersByJob: {},
    icu: [],
    icuTotal: 0,
    markup: [],
    markupTotal: 0,
    unapproved: [],
    unapprovedTotal: 0,
    poGroups: [],
    checks: { error: 0, warning: 0, info: 0 },
    blocked: [],
    blockedTotal: 0,
  };
  const seen = new Uint8Array(head.keys.length);
  for (let r = 0; r < rows.index.length; r++) {
    const i = rows.index[r];
    const k = head.keys[i];
    const value = rows.value[r];
    const status = rows.status[r];
    seen[i] = 1;
    if (status === 'pending') {
      const job = String(rows.job[r]);
      out.markersByJob[job] = (out.markersByJob[job] ?? 0) + 1;
    } else if (value != null && (!input.approvedOnly || status === 'approved')) {
      const imported = rows.imported[r] === 1;
      const gate = cellGate(k.source, value, lang, imported, { origins: input.origins });
      if (gate.icu) {
        if (out.icuTotal++ < REJECTED_CAP) out.icu.push([i, label(k.name, lang)]);
      } else if (gate.markup) {
        if (out.markupTotal++ < REJECTED_CAP) out.markup.push([i, label(k.name, lang)]);
      } else if (input.blockErrors && rows.checks[r] & ERROR) {
        if (out.blockedTotal++ < REJECTED_CAP) out.blocked.push([i, label(k.name, lang)]);
      } else {
        part[i] = imported ? [value, status, 'imported'] : [value, status];
        countInto(out.checks, rows.checks[r]);
        if (rows.outdated[r] === 1) out.outdated++;
        if (status !== 'approved' && out.unapprovedTotal++ < REJECTED_CAP)
          out.unapproved.push([i, label(k.name, lang)]);
        continue;
      }
    }
    seen[i] = 2;
  }
  for (let i = 0; i < head.keys.length; i++) {
    if (seen[i] === 1) continue;
    out.pending++;
    if (input.mode === 'source') {
      part[i] = [head.keys[i].source, 'source', 'fallback'];
      if (out.unapprovedTotal++ < REJECTED_CAP) out.unapproved.push([i, label(head.keys[i].name, lang)]);
    }
  }
  if (input.po) out.poGroups = poGroupsOf(head, lang, part);
  out.body = JSON.stringify(part);
  out.digest = digestOf(out.body);
  return out;
}

/** gettext's collisions (formats/po.ts `poCollisions`) among this language's messages and the base's. */
function poGroupsOf(head: SnapshotHead, lang: string, part: Part) {
  const whole = languageSnapshotInPlace(head, lang, part);
  // Each namespace is a file of its own (snapshot.ts `namespaceView`).
  return ['', ...namespacesOf(whole.keys)].flatMap((ns) => {
    const s = namespaceView(whole, ns);
    const catalog = snapshotCatalog(s, 'po', [lang]);
    return poCollisions(catalog, { languages: [head.baseLang, lang], baseLanguage: head.baseLang }).map((g) => ({
      name: g.name,
      keys: g.entries.map((i) => s.keys[i].name),
    }));
  });
}

export interface RecheckOutput {
  icu: Listed[];
  icuTotal: number;
  markup: Listed[];
  markupTotal: number;
  /** Copied values with a check result of each severity, as today's checks read them. */
  checks: CheckCounts;
}

interface RecheckInput {
  head: HeadRef;
  lang: string;
  part: string;
  origins: string[];
  /** What today's checks read (server/domain/checks/context.ts), for the values the live project does not hold. */
  checkContext?: CheckContext;
  live?: LiveCells;
}

/** The severities today's checks find in a copied value: the live cell's when it holds the same, else computed. */
function maskOf(input: RecheckInput, i: number, value: string): number {
  if (input.live && input.live.value[i] === value) return input.live.checks[i];
  if (!input.checkContext) return 0;
  const k = headOf(input.head).keys[i];
  let mask = 0;
  const key = { id: 0, name: k.name, source: k.source, ctx: k.ctx, comment: k.comment };
  for (const r of checkTranslation(input.checkContext, key, input.lang, value))
    mask |= r.severity === 'error' ? ERROR : r.severity === 'warning' ? WARNING : INFO;
  return mask;
}

/**
 * Today's gates and checks over a stored part (a restore copies it verbatim and only reports what they would refuse,
 * and what they find).
 */
function recheckLanguage(input: RecheckInput): RecheckOutput {
  const head = headOf(input.head);
  const part = JSON.parse(input.part) as Part;
  const out: RecheckOutput = {
    icu: [],
    icuTotal: 0,
    markup: [],
    markupTotal: 0,
    checks: { error: 0, warning: 0, info: 0 },
  };
  for (let i = 0; i < part.length; i++) {
    const c = part[i];
    if (!c || c[2] === 'fallback') continue;
    countInto(out.checks, maskOf(input, i, c[0]));
    const k = head.keys[i];
    const gate = cellGate(k.source, c[0], input.lang, c[2] === 'imported', { origins: input.origins });
    if (gate.icu) {
      if (out.icuTotal++ < REJECTED_CAP) out.icu.push([i, label(k.name, input.lang)]);
    } else if (gate.markup && out.markupTotal++ < REJECTED_CAP) out.markup.push([i, label(k.name, input.lang)]);
  }
  return out;
}

interface RenderInput {
  head: HeadRef;
  lang: string;
  /** The language's part (null for the base language, whose text is the source). */
  part: string | null;
  formats: FormatId[];
}

/** A pull's file is one namespace's (absent: the default one). */
type FileInput = RenderInput & { companion: boolean; namespace?: string };

/** One language's bundle and per-language files. */
function renderLanguageTask(input: RenderInput): LanguageRender {
  const head = headOf(input.head);
  const part = input.part === null ? null : (JSON.parse(input.part) as Part);
  return renderLanguage(languageSnapshotInPlace(head, input.lang, part), input.lang, input.formats);
}

/**
 * One file of one language (a pull of a format its version did not render; `companion`: its companion file), and
 * the collisions a publish of that format would refuse among these cells (collisions.ts).
 */
function renderFileTask(input: FileInput) {
  const head = headOf(input.head);
  const part = input.part === null ? null : (JSON.parse(input.part) as Part);
  const s = namespaceView(languageSnapshotInPlace(head, input.lang, part), input.namespace ?? '');
  const format = input.formats[0];
  const collisions = findCollisions(s, [format]);
  return { collisions, file: collisions.length ? null : renderFile(s, format, input.lang, input.companion) };
}

/** A file that holds every language (xcstrings): the one render that needs every part at once. */
function renderWholeTask(input: {
  head: HeadRef;
  parts: Record<string, string>;
  format: FormatId;
  namespace?: string;
}): RenderedFile {
  const head = headOf(input.head);
  const parts: Record<string, Part> = {};
  for (const [lang, body] of Object.entries(input.parts)) parts[lang] = JSON.parse(body) as Part;
  return renderFile(namespaceView(wholeSnapshot(head, parts), input.namespace ?? ''), input.format, head.baseLang);
}

/** What a render compares of a stored head (stream.ts `reusableFor`). */
function headIndex(input: { head: HeadRef }) {
  const head = headOf(input.head);
  return { keysDigest: head.keysDigest ?? null, parts: head.parts ?? null };
}

/**
 * The keys that collapse to one name in the lossy formats among `formats` (po is gated per language): 160 ms of the
 * event loop at 50,000 keys when it ran there.
 */
function collisionsTask(input: { head: HeadRef; formats: FormatId[] }) {
  const head = headOf(input.head);
  return findCollisions(languageSnapshotInPlace(head, head.baseLang, null), input.formats);
}

/** The tasks a worker runs, by name (pool.ts). */
export const TASKS = {
  headIndex,
  collisions: collisionsTask,
  gateLanguage,
  recheckLanguage,
  renderLanguage: renderLanguageTask,
  renderFile: renderFileTask,
  renderWhole: renderWholeTask,
};
export type TaskName = keyof typeof TASKS;
