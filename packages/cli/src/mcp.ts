// `glossa mcp`: a Model Context Protocol server over stdio (the official @modelcontextprotocol/sdk) with the CLI's
// commands as tools. Paid or publishing tools under an agent key create the operation and send a person to its
// approval page as a URL-mode elicitation, then go on once the operation is approved; the model is never asked to
// approve. A client without URL elicitation gets the approval_url in an error result (nothing was sent).
import { Writable } from 'node:stream';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { pullFile } from '../../client/src/index.js';
import { publish, push, status, versionsRestore, wait, type Ctx } from './commands.js';
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

type ToolResult = { content: Array<{ type: 'text'; text: string }>; isError?: boolean };

const text = (value: unknown, isError = false): ToolResult => ({
  content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) }],
  ...(isError ? { isError: true } : {}),
});

export async function serveMcp(base: Ctx, stderr: NodeJS.WritableStream): Promise<number> {
  const server = new McpServer({ name: 'glossa', version: VERSION }, { capabilities: { tools: {} } });

  /** Runs one CLI command with its output captured: its JSON result is the tool's result. */
  const call = async (fn: (c: Ctx) => Promise<number>): Promise<ToolResult> => {
    const sink = new Sink();
    const out = new Output({ json: true, verbose: false, progress: false, stdout: sink, stderr });
    const ctx: Ctx = {
      ...base,
      out,
      onApproval: (op) => sendToApproval(op),
      // The out-of-band step is over: the client may close what it opened for the person.
      onApproved: (op) => server.server.createElicitationCompletionNotifier(op.operation_id)(),
    };
    try {
      await fn(ctx);
      return text(sink.text.trim() || '{"ok":true}');
    } catch (e) {
      if (e instanceof CliError)
        return text({ ok: false, exitCode: e.exitCode, error: e.message, detail: e.detail }, true);
      return text({ ok: false, error: (e as Error).message }, true);
    }
  };

  const sendToApproval = async (op: { operation_id: string; approval_url: string }) => {
    const caps = server.server.getClientCapabilities();
    if (!caps?.elicitation?.url)
      throw new CliError(
        EXIT.approval,
        `A person must approve operation ${op.operation_id} at ${op.approval_url}; call the tool again once it is approved.`,
        { approval_url: op.approval_url, operation_id: op.operation_id },
      );
    const answer = await server.server.elicitInput({
      mode: 'url',
      message: `Glossa needs a person's approval for operation ${op.operation_id} (spending credits or publishing).`,
      url: op.approval_url,
      elicitationId: op.operation_id,
    });
    if (answer.action !== 'accept')
      throw new CliError(
        EXIT.approval,
        `Approval of ${op.operation_id} was ${answer.action === 'decline' ? 'declined' : 'cancelled'}.`,
        {
          approval_url: op.approval_url,
        },
      );
  };

  const readOnly = { readOnlyHint: true, openWorldHint: false };
  server.registerTool(
    'status',
    {
      description:
        'Translation completeness of each target language (pending, failed, missing) and the cells the gates would refuse.',
      annotations: readOnly,
    },
    () => call((c) => status(c, { failIfIncomplete: false, gates: true })),
  );
  server.registerTool(
    'read_key',
    {
      description: 'Live translations of one key (by name or token), optionally of one language.',
      inputSchema: { ref: z.string().min(1), lang: z.string().optional() },
      annotations: readOnly,
    },
    async ({ ref, lang }) => {
      const r = await base.api.GET('/projects/{projectId}/translations', {
        params: { path: { projectId: base.cfg.projectId }, query: { ref, ...(lang ? { lang } : {}) } },
      });
      return r.data ? text(r.data) : text({ status: r.response.status, ...(r.error as object) }, true);
    },
  );
  const which = z.enum(['all', 'sync', 'translate']).default('all');
  // `glossa push --retranslate-outdated` (outdated.ts).
  const retranslateOutdated = z
    .boolean()
    .optional()
    .describe('Then translate again the values whose source changed since they were written (outdated).');
  server.registerTool(
    'preview_push',
    {
      description:
        'Dry run of a push of the configured source files: the estimate, conflicts and orphans; changes nothing.',
      inputSchema: { files: which, onConflict: z.enum(['server', 'file']).optional(), retranslateOutdated },
      annotations: readOnly,
    },
    ({ files, onConflict, retranslateOutdated: again }) =>
      call((c) =>
        push(c, { dryRun: true, onConflict, only: files === 'all' ? undefined : files, retranslateOutdated: again }),
      ),
  );
  server.registerTool(
    'push',
    {
      description:
        'Push the configured source files (sync for catalogs, translate for the rest). May spend credits: under an agent key a person approves first.',
      inputSchema: { files: which, onConflict: z.enum(['server', 'file']).optional(), retranslateOutdated },
      annotations: { destructiveHint: false, openWorldHint: false },
    },
    ({ files, onConflict, retranslateOutdated: again }) =>
      call((c) =>
        push(c, { dryRun: false, onConflict, only: files === 'all' ? undefined : files, retranslateOutdated: again }),
      ),
  );
  server.registerTool(
    'sync',
    {
      description: 'Sync the configured catalog files only (the file is the whole catalog). May spend credits.',
      inputSchema: { onConflict: z.enum(['server', 'file']).optional() },
    },
    ({ onConflict }) => call((c) => push(c, { dryRun: false, onConflict, only: 'sync' })),
  );
  server.registerTool(
    'wait',
    {
      description: "Wait for the last push's translation jobs to finish; reports failed pairs.",
      inputSchema: { timeoutSeconds: z.number().positive().max(3600).default(600) },
      annotations: readOnly,
    },
    ({ timeoutSeconds }) => call((c) => wait(c, { timeoutMs: timeoutSeconds * 1000, strict: false })),
  );
  server.registerTool(
    'publish',
    {
      description: 'Publish a new version. Under an agent key a person approves first.',
      inputSchema: {
        label: z.string().optional(),
        incompleteMode: z.enum(['source', 'skip', 'hold']).optional(),
        approvedOnly: z.boolean().optional(),
        requireComplete: z.boolean().optional(),
        skipIfIdentical: z.boolean().optional(),
      },
    },
    (o) => call((c) => publish(c, { ...o, strict: false })),
  );
  server.registerTool(
    'rollback',
    {
      description:
        'Restore a published version (YYYY.MM.DD.N or previous) as a new version. A person approves first under an agent key.',
      inputSchema: { version: z.string().regex(/^(\d{4}\.\d{2}\.\d{2}\.\d+|previous)$/) },
    },
    ({ version }) => call((c) => versionsRestore(c, version)),
  );
  server.registerTool(
    'pull_file',
    {
      description: 'One rendered file of a published version (current by default) as text.',
      inputSchema: {
        format: z.enum([
          'json',
          'nested_json',
          'angular_json',
          'ios_strings',
          'xcstrings',
          'android_xml',
          'arb',
          'po',
          'xliff12',
          'xliff20',
        ]),
        lang: z.string().optional(),
        version: z.string().default('current'),
      },
      annotations: readOnly,
    },
    async ({ format, lang, version }) => {
      const r = await pullFile(base.api, base.cfg.projectId, { version, format, ...(lang ? { lang } : {}) });
      return r.data !== undefined ? text(r.data) : text({ status: r.response.status, ...(r.error as object) }, true);
    },
  );

  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  await server.connect(transport);
  await closed;
  return EXIT.ok;
}
