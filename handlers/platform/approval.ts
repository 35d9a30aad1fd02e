// The agent-key rule (`x-operation-action`, spec/README.md), in one place: an agent key (`requires_operation_approval`) spends credits, publishes
// and rolls back only under an approved operation; a non-agent key that sends `operationId` is held to the
// same checks. Each route declares the action that covers it (`x-operation-action`, spec/README.md); the
// pipeline gives every request its Approval and runs `begin()` before the handler, or, on routes recorded
// under a requestId, first thing inside the record (requests.ts), so that refusal is recorded too.
import type { RouteSpec } from '../../generated/routes.js';
import { ApiError, operationNotFound } from './errors.js';

type OperationAction = RouteSpec['operationAction'];

const needsOperation = (message: string, extras?: Record<string, unknown>) =>
  new ApiError(403, 'authorization_required', message, extras);

export class Approval {
  constructor(
    private readonly action: OperationAction,
    private readonly agent: boolean,
    private readonly operationId: unknown,
    private readonly dryRun: boolean,
  ) {}

  /**
   * The checks that need no estimate: the named operation, and what an agent may never do without one. A promise:
   * looking the operation up will read the database once operations exist.
   */
  begin(): Promise<void> {
    const refusal = this.refusal();
    return refusal ? Promise.reject(refusal) : Promise.resolve();
  }

  private refusal(): ApiError | null {
    if (this.action === 'none' || this.dryRun) return null;
    // Operations are not built yet (POST /operations answers 501), so no operationId names one of this key.
    if (this.operationId !== undefined) return operationNotFound();
    if (!this.agent) return null;
    if (this.action === 'publish' || this.action === 'rollback')
      return needsOperation('This agent key needs an approved operation to publish or roll back.');
    if (this.action === 'content_run') return needsOperation('An agent key cannot run a content translation.');
    return null;
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
