// `glossa mcp`: a Model Context Protocol server over stdio (the official @modelcontextprotocol/sdk) with the CLI's
// commands and the project's reads as tools (docs/guides/mcp.md).
// - Approval. Paid or publishing tools under an agent key create the operation (or find the equivalent one a person
//   approved already: `createOperation` reuses it, so calling the tool again after an approval goes on) and send a
//   person to its approval page as a URL-mode elicitation; the model is never asked to approve. A client without
//   URL elicitation gets the approval_url in an error result, nothing sent, and calls the tool again once approved.
// - Time. A call waits for a person at most `approvalWaitSeconds` (default 50 s, below the SDK client's 60 s
//   request timeout) and reports progress at each poll when the client sent a progressToken (so a client that
//   resets its timeout on progress may ask for longer).
// - Cancellation. The call's AbortSignal (a client's `notifications/cancelled`, its timeout, or the connection
//   closing) stops every request of the call; the operation it asked for is cancelled (`cancelOperation`), so an
//   approval given after the client gave up spends nothing, and no poll is left behind.
// - Configuration. Without a config file the server still starts: with GLOSSA_BASE_URL, GLOSSA_PROJECT_ID and
//   GLOSSA_API_KEY it works on the project (the tools that read files say they need one); without them every
//   tool answers with what is missing.
import { Writable } from 'node:stream';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { strFromU8, unzipSync } from 'fflate';
import { REGISTRY } from '../../core/src/formats/index.js';
import { cancelOperation, publish, push, status, versionsRestore, wait, type Ctx } from './commands.js';
import { memoryLeverage } from './memory.js';
import { retranslateCells } from './retranslate.js';
import { CliError, EXIT } from './errors.js';
import { Output } from './output.js';
import { VERSION } from './version.js';

class Sink extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: string, done: () => void) {
    this.text += chunk.toString();
    done();
  }
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
type ToolResult = {
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

const ok = (value: Record<string, unknown>): ToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(value, null, 2) }],
  structuredContent: value,
});
const error = (value: Record<string, unknown>): ToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(value, null, 2) }],
  isError: true,
});

/** How long a call waits for a person unless it asks otherwise: under the SDK client's 60 s default timeout. */
const DEFAULT_WAIT_S = 50;

// ------------------------------------------------------------------ schemas (inputs and outputs)

const approvalWaitSeconds = z
  .number()
  .int()
  .min(0)
  .max(900)
  .optional()
  .describe(
    `Agent keys: how long this call waits for a person to approve (default ${DEFAULT_WAIT_S} s, under a client's usual 60 s request timeout). 0 returns the approval link at once; calling the tool again after the approval goes on. Ask for longer only if your client's timeout allows it (or resets on progress).`,
  );
const files = z
  .enum(['all', 'sync', 'translate'])
  .default('all')
  .describe(
    'Which configured files: all; only the catalogs pushed whole (sync); only the files pushed as units (translate).',
  );
const onConflict = z
  .enum(['server', 'file'])
  .optional()
  .describe('When a source changed both in the project and in the file since the last pull: which one wins.');
const retranslateOutdated = z
  .boolean()
  .optional()
  .describe('Then translate again the values whose source changed since they were written (outdated).');
const lang = (what: string) => z.string().min(1).max(35).describe(what);

/** A tool's output: its result, or (isError) a failure; every field the service adds is passed on. */
const output = (shape: z.ZodRawShape, what: string) => z.looseObject(shape).describe(what);
const pushOutput = output(
  {
    ok: z.boolean().describe('Whether the push succeeded.'),
    dryRun: z.boolean().describe('Whether this was a preview that changed nothing.'),
    trackingTokens: z.array(z.string()).describe('Jobs queued (wait for them with the wait tool).'),
    report: z.array(z.record(z.string(), z.unknown())).describe('One entry per file synced or batch translated.'),
  },
  'What the push did (or would do): per file and batch, created, matched, orphans, conflicts and credits.',
);

export async function serveMcp(
  makeCtx: (out: Output, signal?: AbortSignal) => Ctx,
  stderr: NodeJS.WritableStream,
): Promise<number> {
  const server = new McpServer(
    { name: 'glossa', version: VERSION },
    {
      capabilities: { tools: {} },
      instructions:
        "Glossa localization project tools. Reads are free. Tools that spend credits, publish or roll back need a person's approval under an agent key: the call sends the person to an approval page (or returns its link); after the approval, call the same tool again with the same arguments.",
    },
  );
  // Said once on stderr; every tool then answers it, instead of the server dying before the client connects.
  let configError: string | null = null;
  try {
    makeCtx(new Output({ json: true, verbose: false, progress: false, stdout: new Sink(), stderr }));
  } catch (e) {
    if (!(e instanceof CliError)) throw e;
    configError = e.message;
    stderr.write(`glossa mcp: ${e.message}\n`);
  }
  const inFlight = new Set<Promise<unknown>>();

  /** The call's context: its output captured, its waits bounded, its signal honoured. */
  const contextOf = (extra: Extra, waitSeconds: number | undefined, sink: Sink, asked: string[]): Ctx => {
    const out = new Output({ json: true, verbose: false, progress: false, stdout: sink, stderr });
    const base = makeCtx(out, extra.signal);
    const budget = (waitSeconds ?? DEFAULT_WAIT_S) * 1000;
    const progressToken = extra._meta?.progressToken;
    return {
      ...base,
      approvalTimeoutMs: budget,
      onApproval: async (op) => {
        asked.push(op.operation_id);
        await sendToApproval(op, extra, budget);
      },
      // The out-of-band step is over: the client may close what it opened for the person.
      onApproved: (op) => server.server.createElicitationCompletionNotifier(op.operation_id)(),
      onWaiting: async (message, progress, total) => {
        if (progressToken === undefined || extra.signal.aborted) return;
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken, progress, total, message },
        });
      },
    };
  };

  /**
   * Runs one tool: `fn` with the call's context. A call abandoned by its client (cancelled, timed out, or the
   * connection closed) cancels the operations it asked for; its answer is never sent (the SDK drops it).
   */
  const run = (
    extra: Extra,
    fn: (c: Ctx) => Promise<Record<string, unknown> | number>,
    waitSeconds?: number,
  ): Promise<ToolResult> => {
    const work = (async (): Promise<ToolResult> => {
      if (configError) return error({ ok: false, exitCode: EXIT.usage, error: configError });
      const sink = new Sink();
      const asked: string[] = [];
      try {
        const value = await fn(contextOf(extra, waitSeconds, sink, asked));
        if (extra.signal.aborted) throw new CliError(EXIT.failure, 'The call was cancelled.');
        return ok(typeof value === 'number' ? parsed(sink.text) : value);
      } catch (e) {
        if (extra.signal.aborted) {
          // A fresh client (the call's own stops at its signal) withdraws what nobody waits for any more.
          const api = makeCtx(
            new Output({ json: true, verbose: false, progress: false, stdout: new Sink(), stderr }),
          ).api;
          for (const id of asked) await cancelOperation(api, id);
        }
        if (e instanceof CliError)
          return error({ ok: false, exitCode: e.exitCode, error: e.message, detail: e.detail });
        return error({ ok: false, exitCode: EXIT.failure, error: (e as Error).message ?? String(e) });
      }
    })();
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
    return work;
  };
  const parsed = (text: string): Record<string, unknown> => {
    const lines = text.trim().split('\n').filter(Boolean);
    return lines.length ? (JSON.parse(lines[lines.length - 1]) as Record<string, unknown>) : { ok: true };
  };

  const sendToApproval = async (op: { operation_id: string; approval_url: string }, extra: Extra, budget: number) => {
    const caps = server.server.getClientCapabilities();
    const pending = { approval_url: op.approval_url, operation_id: op.operation_id, state: 'pending_approval' };
    if (!caps?.elicitation?.url || budget <= 0)
      throw new CliError(
        EXIT.approval,
        `A person must approve operation ${op.operation_id} at ${op.approval_url}; once it is approved, call this tool again with the same arguments (it then goes on without asking again).`,
        pending,
      );
    const answer = await server.server.elicitInput(
      {
        mode: 'url',
        message: `Glossa needs a person's approval for operation ${op.operation_id} (spending credits or publishing).`,
        url: op.approval_url,
        elicitationId: op.operation_id,
      },
      { signal: extra.signal, relatedRequestId: extra.requestId, timeout: budget },
    );
    if (answer.action !== 'accept') {
      // Nobody will approve what the person declined to open: withdrawn, it leaves their queue.
      await cancelOperation(
        makeCtx(new Output({ json: true, verbose: false, progress: false, stdout: new Sink(), stderr })).api,
        op.operation_id,
      );
      throw new CliError(
        EXIT.approval,
        `Approval of ${op.operation_id} was ${answer.action === 'decline' ? 'declined' : 'cancelled'}; the operation is cancelled.`,
        { ...pending, state: 'cancelled' },
      );
    }
  };

  const needsFiles = (c: Ctx) => {
    if (!c.cfg.files.length)
      throw new CliError(
        EXIT.usage,
        `No files are mapped${c.cfg.file ? ` in ${c.cfg.file}` : ' (no glossa.config.json: this server works on the project only)'}; push and pull need a config that maps source files.`,
      );
  };
  const project = (c: Ctx) => ({ path: { projectId: c.cfg.projectId } });
  /** A read's answer as the tool's: the body, or the status and error. */
  const answered = (r: { data?: unknown; error?: unknown; response: Response }, wrap?: string) =>
    r.data !== undefined
      ? wrap
        ? { ok: true, [wrap]: r.data }
        : { ok: true, ...(r.data as object) }
      : (() => {
          throw new CliError(EXIT.failure, `${r.response.status} ${JSON.stringify(r.error)}`, r.error);
        })();

  const readOnly = { readOnlyHint: true, openWorldHint: false };

  server.registerTool(
    'status',
    {
      title: 'Project status',
      description:
        'Translation completeness of each target language (done, pending, failed, missing, outdated) and the cells the ICU and markup gates would refuse in a publish.',
      inputSchema: {},
      outputSchema: output(
        {
          ok: z.boolean().describe('Always true on success.'),
          keyCount: z.number().describe('Enabled keys.'),
          baseLang: z.string().describe('The base language.'),
          languages: z.array(z.looseObject({ code: z.string() })).describe('Per target language: counts by state.'),
          incomplete: z.array(z.string()).describe('Languages not complete.'),
        },
        'Completeness per language.',
      ),
      annotations: readOnly,
    },
    (_a, extra) => run(extra, (c) => status(c, { failIfIncomplete: false, gates: true })),
  );
  server.registerTool(
    'read_key',
    {
      title: 'Read a key',
      description:
        'The live values of one key in every language (or one), with their states: by key name, or by a token the runtime reported.',
      inputSchema: {
        ref: z.string().min(1).max(300).describe('The key name (e.g. home.title), or a reference token.'),
        lang: lang('Only this language (a project language code, e.g. de).').optional(),
      },
      outputSchema: output({ ok: z.boolean().describe('Always true on success.') }, 'The key and its values.'),
      annotations: readOnly,
    },
    ({ ref, lang: l }, extra) =>
      run(extra, async (c) =>
        answered(
          await c.api.GET('/projects/{projectId}/translations', {
            params: { ...project(c), query: { ref, ...(l ? { lang: l } : {}) } },
          }),
        ),
      ),
  );
  server.registerTool(
    'preview_push',
    {
      title: 'Preview a push',
      description:
        'Dry run of a push of the configured source files: per file what would be created, updated, matched and disabled, conflicts, and the estimate in millicredits; changes nothing and needs no approval.',
      inputSchema: { files, onConflict, retranslateOutdated },
      outputSchema: pushOutput,
      annotations: readOnly,
    },
    ({ files: f, onConflict: oc, retranslateOutdated: again }, extra) =>
      run(extra, (c) => {
        needsFiles(c);
        return push(c, { dryRun: true, onConflict: oc, only: f === 'all' ? undefined : f, retranslateOutdated: again });
      }),
  );
  server.registerTool(
    'push',
    {
      title: 'Push source files',
      description:
        'Push the configured source files: each catalog file is the whole catalog of its namespace (keys gone from it are disabled), the rest are translated in batches. May spend credits: under an agent key one approval covers the whole push; call again after the approval. A rerun of an unchanged push replays and asks nobody.',
      inputSchema: { files, onConflict, retranslateOutdated, approvalWaitSeconds },
      outputSchema: pushOutput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    ({ files: f, onConflict: oc, retranslateOutdated: again, approvalWaitSeconds: w }, extra) =>
      run(
        extra,
        (c) => {
          needsFiles(c);
          return push(c, {
            dryRun: false,
            onConflict: oc,
            only: f === 'all' ? undefined : f,
            retranslateOutdated: again,
          });
        },
        w,
      ),
  );
  server.registerTool(
    'sync',
    {
      title: 'Sync catalog files',
      description:
        'Push only the catalog files pushed whole (keys gone from a file are disabled). May spend credits: under an agent key a person approves first.',
      inputSchema: { onConflict, approvalWaitSeconds },
      outputSchema: pushOutput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    ({ onConflict: oc, approvalWaitSeconds: w }, extra) =>
      run(
        extra,
        (c) => {
          needsFiles(c);
          return push(c, { dryRun: false, onConflict: oc, only: 'sync' });
        },
        w,
      ),
  );
  server.registerTool(
    'wait',
    {
      title: 'Wait for translation jobs',
      description:
        "Wait for the last push's translation jobs (or the given tracking tokens) to finish; reports failed pairs. Returns after timeoutSeconds with an error if they are still running: call again.",
      inputSchema: {
        trackingTokens: z
          .array(z.string().min(1).max(200))
          .max(100)
          .optional()
          .describe("Jobs to wait for (default: the last push's, from .glossa/state.json)."),
        timeoutSeconds: z
          .number()
          .positive()
          .max(3600)
          .default(DEFAULT_WAIT_S)
          .describe(`How long to wait (default ${DEFAULT_WAIT_S} s, under a client's usual 60 s timeout).`),
      },
      outputSchema: output(
        {
          ok: z.boolean().describe('Every job done (and none failed).'),
          jobs: z.array(z.looseObject({ trackingToken: z.string(), status: z.string() })).describe('Each job.'),
          failedPairs: z.number().describe('Pairs that failed to translate.'),
        },
        'The jobs as they ended.',
      ),
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    ({ trackingTokens, timeoutSeconds }, extra) =>
      run(extra, (c) => wait(c, { tokens: trackingTokens, timeoutMs: timeoutSeconds * 1000, strict: false })),
  );
  const publishInput = {
    label: z.string().max(200).optional().describe('A label for the version.'),
    incompleteMode: z
      .enum(['source', 'skip', 'hold'])
      .optional()
      .describe('Keys without a value: the source text (source), left out (skip), or the previous value (hold).'),
    approvedOnly: z.boolean().optional().describe('Publish approved values only.'),
    requireComplete: z.boolean().optional().describe('Refuse when anything is incomplete.'),
    skipIfIdentical: z.boolean().optional().describe('Mint nothing when nothing changed.'),
  };
  server.registerTool(
    'preview_publish',
    {
      title: 'Preview a publish',
      description:
        'What a publish with these flags would change against the current version, per language (keys added, changed with old and new text, removed), what it would leave out or refuse, and whether it would mint nothing (identical). Changes nothing and needs no approval.',
      inputSchema: {
        incompleteMode: publishInput.incompleteMode,
        approvedOnly: publishInput.approvedOnly,
        cap: z.number().int().min(1).max(1000).optional().describe('Keys listed per kind and language (default 100).'),
      },
      outputSchema: output(
        {
          ok: z.boolean().describe('Always true on success.'),
          identical: z.boolean().describe('Nothing would change: skipIfIdentical would mint nothing.'),
          languages: z
            .array(z.looseObject({ lang: z.string(), addedTotal: z.number(), changedTotal: z.number() }))
            .describe('Per language: keys added, changed and removed.'),
        },
        'What the publish would change.',
      ),
      annotations: readOnly,
    },
    (q, extra) =>
      run(extra, async (c) =>
        answered(
          await c.api.GET('/projects/{projectId}/publish/preview', {
            params: { ...project(c), query: Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined)) },
          }),
        ),
      ),
  );
  server.registerTool(
    'publish',
    {
      title: 'Publish a version',
      description:
        'Publish a new version of the project (delivered to apps at once). Under an agent key a person approves first (the approval page shows what changes); call again after the approval. Use preview_publish first.',
      inputSchema: { ...publishInput, approvalWaitSeconds },
      outputSchema: output(
        {
          ok: z.boolean().describe('Published (or unchanged).'),
          versionId: z.string().describe('The version minted (or the current one when unchanged).'),
        },
        'The version.',
      ),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    ({ approvalWaitSeconds: w, ...o }, extra) => run(extra, (c) => publish(c, { ...o, strict: false }), w),
  );
  server.registerTool(
    'rollback',
    {
      title: 'Restore a version',
      description:
        'Restore a published version (YYYY.MM.DD.N or previous) as a new version, delivered at once. Under an agent key a person approves first; call again after the approval.',
      inputSchema: {
        version: z
          .string()
          .regex(/^(\d{4}\.\d{2}\.\d{2}\.\d+|previous)$/)
          .describe('The version to restore: YYYY.MM.DD.N, or previous (the one before the current).'),
        approvalWaitSeconds,
      },
      outputSchema: output(
        {
          ok: z.boolean().describe('Restored.'),
          versionId: z.string().describe('The new version.'),
          restoredFrom: z.string().describe('The version restored.'),
        },
        'The new version.',
      ),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    },
    ({ version, approvalWaitSeconds: w }, extra) => run(extra, (c) => versionsRestore(c, version), w),
  );
  const formats = Object.keys(REGISTRY) as [string, ...string[]];
  server.registerTool(
    'pull_file',
    {
      title: 'Read a rendered file',
      description:
        'One rendered file of a published version, as text. Per-language formats (json, android_xml, po, ...) need lang; multi-language formats (xcstrings) hold every language.',
      inputSchema: {
        format: z.enum(formats).describe('The file format.'),
        lang: lang('The language (required for per-language formats).').optional(),
        version: z.string().max(40).default('current').describe('YYYY.MM.DD.N, or current.'),
      },
      outputSchema: output(
        {
          ok: z.boolean().describe('Always true on success.'),
          format: z.string().describe('The format.'),
          version: z.string().describe('The version read.'),
          files: z
            .array(
              z.object({ path: z.string().describe('Its path in an export.'), text: z.string().describe('Its text.') }),
            )
            .describe('The file (two for .strings with its .stringsdict).'),
        },
        'The rendered file.',
      ),
      annotations: readOnly,
    },
    ({ format, lang: l, version }, extra) =>
      run(extra, async (c) => {
        const info = REGISTRY[format as keyof typeof REGISTRY];
        if (!info.multiLanguage && !l)
          throw new CliError(EXIT.usage, `${format} is one file per language: name lang (e.g. "de").`);
        const r = await c.api.GET('/projects/{projectId}/translations', {
          params: { ...project(c), query: { version, format: format as never, ...(l ? { lang: l } : {}) } },
          parseAs: 'arrayBuffer',
        });
        if (r.data === undefined) return answered(r);
        const bytes = new Uint8Array(r.data);
        // A zip (a language's file with its companion): each file as text.
        if (bytes[0] === 0x50 && bytes[1] === 0x4b) {
          const entries = unzipSync(bytes);
          return {
            ok: true,
            format,
            version,
            files: Object.entries(entries).map(([p, b]) => ({ path: p, text: strFromU8(b) })),
          };
        }
        return {
          ok: true,
          format,
          version,
          files: [{ path: info.path(l ?? '', false), text: new TextDecoder().decode(bytes) }],
        };
      }),
  );
  server.registerTool(
    'cancel_operation',
    {
      title: 'Withdraw an approval request',
      description:
        "Cancel an operation this key asked for (pending, or approved and not running): it leaves the person's queue and nothing more is done under it.",
      inputSchema: { operationId: z.string().min(1).max(64).describe('The operation_id an earlier call returned.') },
      outputSchema: output(
        {
          ok: z.boolean().describe('Cancelled.'),
          operation: z.looseObject({ operation_id: z.string(), state: z.string() }).describe('The operation now.'),
        },
        'The cancelled operation.',
      ),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    ({ operationId }, extra) =>
      run(extra, async (c) =>
        answered(
          await c.api.POST('/operations/{operationId}/cancel', { params: { path: { operationId } } }),
          'operation',
        ),
      ),
  );
  const keyRef = z.string().min(1).max(255).describe("The key's name (e.g. home.title) or its token.");
  server.registerTool(
    'search_keys',
    {
      title: 'Search keys',
      description:
        "The project's keys with each target language's value and status: by text in the name, source or a translation, by status of a language's cell (missing finds the untranslated ones), by namespace.",
      inputSchema: {
        q: z.string().min(1).max(200).optional().describe('Text the key name, source or a translation contains.'),
        lang: lang('The target language status is about.').optional(),
        status: z
          .enum(['missing', 'pending', 'failed', 'translated', 'reviewed', 'approved', 'outdated'])
          .optional()
          .describe('Cells in this state (of lang, else of any target language).'),
        namespace: z.string().max(64).optional().describe('Keys of this namespace only ("" for the default one).'),
        limit: z.number().int().min(1).max(200).default(50).describe('At most this many keys.'),
        offset: z.number().int().min(0).default(0).describe('Skip this many (paging).'),
      },
      outputSchema: output(
        {
          ok: z.boolean().describe('Always true on success.'),
          total: z.number().describe('Keys matching.'),
          keys: z
            .array(z.looseObject({ key: z.string(), source: z.string(), cells: z.array(z.looseObject({})) }))
            .describe('The keys with their cells.'),
        },
        'A page of keys.',
      ),
      annotations: readOnly,
    },
    (o, extra) =>
      run(extra, async (c) =>
        answered(
          await c.api.GET('/projects/{projectId}/keys', {
            params: {
              ...project(c),
              query: Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)),
            },
          }),
        ),
      ),
  );
  server.registerTool(
    'get_key',
    {
      title: 'Read a key',
      description:
        "One key with every language's value, status, quality check results and gate verdicts, and the history of its values (who changed what, when).",
      inputSchema: { key: keyRef },
      outputSchema: output(
        {
          ok: z.boolean().describe('Always true on success.'),
          key: z.string().describe('The key name.'),
          cells: z.array(z.looseObject({ lang: z.string() })).describe('One per target language.'),
          history: z.array(z.looseObject({})).describe('Value and status changes, newest first.'),
        },
        'The key.',
      ),
      annotations: readOnly,
    },
    ({ key }, extra) =>
      run(extra, async (c) =>
        answered(
          await c.api.GET('/projects/{projectId}/keys/{key}', { params: { path: { ...project(c).path, key } } }),
        ),
      ),
  );
  const saved = output(
    {
      ok: z.boolean().describe('Saved.'),
      key: z.string().describe('The key.'),
      lang: z.string().describe('The language.'),
      status: z.string().describe('The status now (never approved by this tool).'),
      value: z.string().describe('The value now.'),
    },
    'The translation as it now is.',
  );
  const put = (c: Ctx, key: string, l: string, body: Record<string, unknown>) =>
    c.api.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
      params: { path: { ...project(c).path, key, lang: l } },
      body: body,
    });
  server.registerTool(
    'set_translation',
    {
      title: 'Edit a translation',
      description:
        "Write a key's translation into one language by hand (an edit: status translated; never approved, which stays a person's). Costs nothing.",
      inputSchema: {
        key: keyRef,
        lang: lang('The target language.'),
        value: z.string().min(1).max(20000).describe('The translation.'),
        baseUpdatedAt: z
          .string()
          .optional()
          .describe("The cell's updatedAt as get_key read it: refused if someone changed it since."),
      },
      outputSchema: saved,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    ({ key, lang: l, value, baseUpdatedAt }, extra) =>
      run(extra, async (c) => answered(await put(c, key, l, { value, ...(baseUpdatedAt ? { baseUpdatedAt } : {}) }))),
  );
  server.registerTool(
    'mark_reviewed',
    {
      title: 'Mark a translation reviewed',
      description:
        "Mark a key's value in one language reviewed (a translator checked it). Never approves: a person approves in the dashboard.",
      inputSchema: { key: keyRef, lang: lang('The target language.') },
      outputSchema: saved,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    ({ key, lang: l }, extra) => run(extra, async (c) => answered(await put(c, key, l, { status: 'reviewed' }))),
  );
  server.registerTool(
    'retranslate_outdated',
    {
      title: 'Translate outdated values again',
      description:
        "Queue the chosen keys' outdated values (their source changed since they were written) for the AI fill again; spends credits. Under an agent key the service refuses paid work without an operation (the answer says so): retranslate_cells, naming the cells, asks a person to approve instead.",
      inputSchema: {
        keys: z.array(keyRef).min(1).max(500).optional().describe('Key names (default every key).'),
        langs: z
          .array(lang('A target language.'))
          .min(1)
          .max(200)
          .optional()
          .describe('Languages (default every AI one).'),
      },
      outputSchema: output(
        {
          ok: z.boolean().describe('Queued (or nothing to do).'),
          queued: z.number().describe('Cells queued.'),
          trackingToken: z.string().nullable().describe('The job (wait for it with the wait tool); null when none.'),
        },
        'What was queued.',
      ),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    ({ keys, langs }, extra) =>
      run(extra, async (c) =>
        answered(
          await c.api.POST('/projects/{projectId}/outdated/retranslate', {
            params: project(c),
            body: { ...(keys ? { keys } : {}), ...(langs ? { langs } : {}) },
          }),
        ),
      ),
  );
  server.registerTool(
    'retranslate_cells',
    {
      title: 'Translate chosen values again',
      description:
        "Queue chosen cells (a key and a language each) for the AI fill again, whatever their state: each current value goes to the key's history and the cell is pending until the new value arrives. Spends credits: under an agent key a person approves first (the call sends them to the approval page, or returns its link: call again with the same arguments once approved). A rerun with the same cells replays the first answer and asks nobody; pass a new requestId to ask again.",
      inputSchema: {
        cells: z
          .array(
            z.object({
              key: keyRef,
              lang: lang('The target language (an AI-filled one, not the base language).'),
              namespace: z.string().max(64).optional().describe("The key's namespace (default: the default one)."),
            }),
          )
          .min(1)
          .max(500)
          .describe('The cells to translate again, each once (at most 500).'),
        requestId: z
          .string()
          .regex(/^[A-Za-z0-9_-]{1,128}$/)
          .optional()
          .describe('Default: derived from the cells, so a rerun replays. A new one asks for the same cells again.'),
        approvalWaitSeconds,
      },
      outputSchema: output(
        {
          ok: z.boolean().describe('Queued (or nothing to do).'),
          queued: z.number().describe('Cells queued.'),
          trackingToken: z.string().nullable().describe('The job (wait for it with the wait tool); null when none.'),
          estimatedCredits: z.number().describe('Millicredits held for the job.'),
          cells: z
            .array(z.looseObject({ key: z.string(), lang: z.string(), outcome: z.string() }))
            .describe('Each cell: queued, or in_flight (a fill job already holds it).'),
          replayed: z
            .boolean()
            .optional()
            .describe('The first answer of the same request again: nothing new was done.'),
          operationId: z.string().optional().describe('The approved operation it ran under (agent keys).'),
        },
        'What was queued.',
      ),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    },
    ({ cells, requestId, approvalWaitSeconds: w }, extra) =>
      run(extra, (c) => retranslateCells(c, cells, requestId), w),
  );
  server.registerTool(
    'memory_matches',
    {
      title: 'Translation memory matches',
      description:
        "The translation memory's best matches of a source text for a language (score, where it came from, whether it would fill the pair at no charge).",
      inputSchema: {
        source: z.string().min(1).max(5000).describe('The source text, in the base language.'),
        lang: lang('The target language.'),
        ctx: z.string().max(2000).optional().describe("The key's context (who says it, where), if any."),
        key: z.string().max(255).optional().describe('The key the text belongs to, if any.'),
      },
      outputSchema: output({ ok: z.boolean().describe('Always true on success.') }, 'The matches, best first.'),
      annotations: readOnly,
    },
    ({ source, lang: l, ctx, key }, extra) =>
      run(extra, async (c) =>
        answered(
          await c.api.GET('/projects/{projectId}/memory', {
            params: { ...project(c), query: { source, lang: l, ...(ctx ? { ctx } : {}), ...(key ? { key } : {}) } },
          }),
        ),
      ),
  );
  server.registerTool(
    'memory_leverage',
    {
      title: 'Translation memory leverage',
      description:
        'For each target language, the pairs still to translate counted by the band of their best memory match, and what the exact matches save.',
      inputSchema: {
        langs: z.array(lang('A target language.')).max(50).optional().describe('Languages (default all targets).'),
      },
      outputSchema: output({ ok: z.boolean().describe('Always true on success.') }, 'Counts per language and band.'),
      annotations: readOnly,
    },
    ({ langs }, extra) => run(extra, async (c) => memoryLeverage(c, langs)),
  );
  server.registerTool(
    'terms',
    {
      title: 'Termbase terms',
      description: "The project's terms (its own and its workspace's) with their translations and rules.",
      inputSchema: {
        q: z.string().min(1).max(200).optional().describe('Text the term, its description or a translation contains.'),
        lang: lang('Only terms with a translation into this language.').optional(),
        limit: z.number().int().min(1).max(200).default(50).describe('At most this many.'),
        offset: z.number().int().min(0).default(0).describe('Skip this many (paging).'),
      },
      outputSchema: output({ ok: z.boolean().describe('Always true on success.') }, 'The terms and their total.'),
      annotations: readOnly,
    },
    ({ q, lang: l, limit, offset }, extra) =>
      run(extra, async (c) =>
        answered(
          await c.api.GET('/projects/{projectId}/terms', {
            params: { ...project(c), query: { ...(q ? { q } : {}), ...(l ? { lang: l } : {}), limit, offset } },
          }),
        ),
      ),
  );
  server.registerTool(
    'check_failures',
    {
      title: 'Quality check failures',
      description:
        "What the project's quality checks found (placeholders, markup, length, terms, ...), one row per result, with counts per severity.",
      inputSchema: {
        lang: lang('One language (the base language: the sources and key names).').optional(),
        severity: z.enum(['error', 'warning', 'info']).optional().describe('One severity only.'),
        check: z.string().max(100).optional().describe('One check only (custom:<id> for a project check).'),
        limit: z.number().int().min(1).max(500).default(100).describe('Rows at most.'),
        cursor: z.string().max(500).optional().describe('The cursor of the previous page.'),
      },
      outputSchema: output({ ok: z.boolean().describe('Always true on success.') }, 'The results and the counts.'),
      annotations: readOnly,
    },
    ({ lang: l, severity, check, limit, cursor }, extra) =>
      run(extra, async (c) =>
        answered(
          await c.api.GET('/projects/{projectId}/checks', {
            params: {
              ...project(c),
              query: {
                ...(l ? { lang: l } : {}),
                ...(severity ? { severity } : {}),
                ...(check ? { check } : {}),
                ...(cursor ? { cursor } : {}),
                limit,
              },
            },
          }),
        ),
      ),
  );

  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  await server.connect(transport);
  await closed;
  // The SDK aborted every call at the close: their clean-up (cancelling what they asked for) finishes first.
  await Promise.allSettled([...inFlight]);
  return EXIT.ok;
}
