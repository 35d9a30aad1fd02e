// The agent-key rule (`x-operation-action`, spec/README.md), in one place: an agent key (`requires_operation_approval`) spends credits, publishes
// and rolls back only under an approved operation; a non-agent key that sends `operationId` is held to the
// same checks. Each route declares the action that covers it (`x-operation-action`, spec/README.md); the
// pipeline gives every request its Approval and runs `begin()` before the handler, or, on routes recorded
// under a requestId, first thing inside the record (requests.ts), so that refusal is recorded too.
// The operations themselves live in server/domain/operations/ (above this layer): the service hands their checks in
// as an OperationGate (App.operations), which `begin()` calls for a request that names an operation.
import type { RouteSpec } from '../../generated/routes.js';
import type { Db } from './db.js';
import { ApiError, invalidArgument, isRefusal, operationNotFound, type Refusal } from './errors.js';

type OperationAction = RouteSpec['operationAction'];

const needsOperation = (message: string, extras?: Record<string, unknown>) =>
  new ApiError(403, 'authorization_required', message, extras);

/** The body fields that put a translate or sync under an operation: all of them or none. */
export const BATCH_FIELDS = ['operationId', 'requestId', 'attemptId', 'batchIndex', 'batchSha256'] as const;

/** A request that names an operation, as the gate sees it. */
export interface OperationCall {
  action: 'translate' | 'publish' | 'rollback';
  operationId: string;
  keyId: string;
  projectId: string;
  body: Record<string, unknown>;
  params: Record<string, unknown>;
}

/** What a translate or sync batch reserves its estimate from (server/domain/fill/queue.ts). */
export interface OperationBudget {
  readonly operationId: string;
  /** Inside the transaction that queues the fill: locks the operation and returns what is left to reserve (mc). */
  remaining(trx: Db): Promise<number>;
  /** In the same transaction: adds `mc` to the operation's reservation. */
  reserve(trx: Db, mc: number): Promise<void>;
}

/** An operation the request acts under, once the gate admitted it. */
export interface BoundOperation {
  readonly id: string;
  readonly budget?: OperationBudget;
  /** Publish and restore: the handler minted (the use taken before the write stays taken). */
  succeeded?(): Promise<void>;
  /** Publish and restore: refused without minting; the use is given back. */
  refused?(err: Refusal | ApiError): Promise<void>;
}

/** The operation checks (server/domain/operations/gate.ts), handed to the platform by the service. */
export interface OperationGate {
  bind(db: Db, call: OperationCall): Promise<BoundOperation>;
}

/** What the pipeline knows of the request beyond the route: who calls, and the validated body and path. */
interface ApprovalContext {
  db: Db;
  gate: OperationGate | undefined;
  keyId: string | undefined;
  projectId: string | undefined;
  body: unknown;
  params: Record<string, unknown>;
}

export class Approval {
  /** The operation this request acts under, after begin(); null when it names none. */
  operation: BoundOperation | null = null;

  constructor(
    private readonly action: OperationAction,
    private readonly agent: boolean,
    private readonly operationId: unknown,
    private readonly dryRun: boolean,
    private readonly context?: ApprovalContext,
  ) {}

  /**
   * Before anything is recorded or written: under an operation, translate and sync carry every batch field or
   * none (400 invalid_argument). Dry runs ignore the operation fields.
   */
  checkFields(): void {
    if (this.action !== 'translate' || this.dryRun) return;
    const body = (this.context?.body ?? {}) as Record<string, unknown>;
    const present = BATCH_FIELDS.filter((f) => body[f] !== undefined);
    const opFields = present.filter((f) => f !== 'requestId');
    if (opFields.length && present.length !== BATCH_FIELDS.length)
      throw invalidArgument(`Under an operation, ${BATCH_FIELDS.join(', ')} are required together.`);
  }

  /** The checks that need no estimate: the named operation, and what an agent may never do without one. */
  async begin(): Promise<void> {
    if (this.action === 'none' || this.dryRun) return;
    if (this.operationId !== undefined) {
      if (this.action === 'content_run') throw needsOperation('No operation covers a content run.');
      const c = this.context;
      if (!c?.gate || !c.keyId || !c.projectId || typeof this.operationId !== 'string') throw operationNotFound();
      this.operation = await c.gate.bind(c.db, {
        action: this.action,
        operationId: this.operationId,
        keyId: c.keyId,
        projectId: c.projectId,
        body: (c.body ?? {}) as Record<string, unknown>,
        params: c.params,
      });
      return;
    }
    if (!this.agent) return;
    if (this.action === 'publish' || this.action === 'rollback')
      throw needsOperation('This agent key needs an approved operation to publish or roll back.');
    if (this.action === 'content_run') throw needsOperation('An agent key cannot run a content translation.');
  }

  /** After the handler of a publish or restore: the use stays taken, or is given back on a refusal. */
  async settle(err: unknown): Promise<void> {
    const op = this.operation;
    if (!op) return;
    if (err === undefined) await op.succeeded?.();
    else if (isRefusal(err)) await op.refused?.(err);
  }

  /** True where paid work needs an operation this request does not carry: the handler then estimates and calls spend(). */
  get guardsSpending(): boolean {
    return this.action === 'translate' && this.agent && !this.dryRun && this.operationId === undefined;
  }

  /** Before queueing paid work: free work passes; paid work without an operation is refused with its estimate. */
  spend(estimatedCredits: number): void {
    if (this.guardsSpending && estimatedCredits > 0) {
      throw needsOperation('This agent key needs an approved translate operation to queue paid translation.', {
        estimatedCredits,
      });
    }
  }
}
