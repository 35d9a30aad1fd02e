// Implementations by operationId. A route of the spec missing here answers 501 not_implemented.
import * as capture from '../handlers/capture/routes.js';
import * as config from '../handlers/config/routes.js';
import * as content from '../handlers/content/routes.js';
import * as contentInternal from '../handlers/content/internal.routes.js';
import * as contentDashboard from '../handlers/content/dashboard.routes.js';
import * as credential from '../handlers/credential/routes.js';
import * as dashboardUsers from '../handlers/dashboard/users.routes.js';
import * as delivery from '../handlers/delivery/routes.js';
import * as files from '../handlers/files/routes.js';
import * as internalApiKeys from '../handlers/internal/apikeys.routes.js';
import * as internalDebug from '../handlers/internal/debug.routes.js';
import * as internalJobs from '../handlers/internal/jobs.routes.js';
import * as internalKeys from '../handlers/internal/keys.routes.js';
import * as internalProjects from '../handlers/internal/projects.routes.js';
import * as internalOverview from '../handlers/internal/overview.routes.js';
import * as internalWorkspaces from '../handlers/internal/workspaces.routes.js';
import * as review from '../handlers/translate/review.routes.js';
import * as operations from '../handlers/operations/routes.js';
import * as operationsInternal from '../handlers/operations/internal.routes.js';
import * as sync from '../handlers/sync/routes.js';
import * as publish from '../handlers/publish/routes.js';
import * as publishInternal from '../handlers/publish/internal.routes.js';
import * as publishVersions from '../handlers/publish/versions.routes.js';
import * as origin from '../handlers/delivery/origin.routes.js';
import type { OperationId } from '../handlers/platform/contract.js';
import type { Handler, RawHandler } from '../handlers/platform/pipeline.js';
import * as translatePush from '../handlers/translate/push.routes.js';
import * as translateRead from '../handlers/translate/read.routes.js';
import * as translateStatus from '../handlers/translate/status.routes.js';
import * as webhooks from '../handlers/webhooks/routes.js';

const typed: { [Id in OperationId]?: Handler<Id> } = {
  translateUnits: translatePush.translateUnits,
  syncCatalog: sync.syncCatalog,
  publishVersion: publish.publishVersion,
  restoreVersion: publish.restoreVersion,
  listVersions: publishVersions.listVersions,
  getProjectStatus: translateStatus.getProjectStatus,
  getManifest: origin.getManifest,
  getBundle: origin.getBundle,
  getDomainManifest: origin.getDomainManifest,
  getDomainBundle: origin.getDomainBundle,
  getTranslations: translateRead.getTranslations,
  getRequestRecord: translateRead.getRequestRecord,
  captureUnits: capture.captureUnits,
  addLanguage: config.addLanguage,
  addOutputFormat: config.addOutputFormat,
  getCredential: credential.getCredential,
  createOperation: operations.createOperation,
  getOperation: operations.getOperation,
  getProjectMeta: files.getProjectMeta,
  getPricing: delivery.getPricing,
  getDeliveryHealth: delivery.getHealth,
  internalCreateWorkspace: internalWorkspaces.internalCreateWorkspace,
  internalUpdateWorkspace: internalWorkspaces.internalUpdateWorkspace,
  internalAdjustCredits: internalWorkspaces.internalAdjustCredits,
  internalCreateProject: internalProjects.internalCreateProject,
  internalGetProject: internalProjects.internalGetProject,
  internalUpdateProject: internalProjects.internalUpdateProject,
  internalListEvents: internalProjects.internalListEvents,
  internalRemoveLanguage: internalProjects.internalRemoveLanguage,
  internalCreateApiKey: internalProjects.internalCreateApiKey,
  internalRevokeApiKey: internalProjects.internalRevokeApiKey,
  internalRunDueJobs: internalJobs.internalRunDueJobs,
  internalDebugMetrics: internalDebug.internalDebugMetrics,
  internalListKeys: internalKeys.internalListKeys,
  internalUpdateKey: internalKeys.internalUpdateKey,
  internalPutTranslation: internalKeys.internalPutTranslation,
  internalRetryFill: internalKeys.internalRetryFill,
  internalGetKey: review.internalGetKey,
  internalCheckTranslation: review.internalCheckTranslation,
  internalBulkReviewKeys: review.internalBulkReviewKeys,
  internalBulkKeys: review.internalBulkKeys,
  internalReviewCaptured: review.internalReviewCaptured,
  internalGetOperation: operationsInternal.internalGetOperation,
  internalApproveOperation: operationsInternal.internalApproveOperation,
  internalDenyOperation: operationsInternal.internalDenyOperation,
  internalListOperations: operationsInternal.internalListOperations,
  internalListProjects: internalOverview.internalListProjects,
  internalGetProjectOverview: internalOverview.internalGetProjectOverview,
  internalPreviewPublish: publishInternal.internalPreviewPublish,
  internalPublish: publishInternal.internalPublish,
  internalListVersions: publishInternal.internalListVersions,
  internalDiffVersions: publishInternal.internalDiffVersions,
  internalRestoreVersion: publishInternal.internalRestoreVersion,
  internalCreateUser: dashboardUsers.internalCreateUser,
  createWebhook: webhooks.createWebhook,
  listWebhooks: webhooks.listWebhooks,
  updateWebhook: webhooks.updateWebhook,
  deleteWebhook: webhooks.deleteWebhook,
  rotateWebhookSecret: webhooks.rotateWebhookSecret,
  listWebhookDeliveries: webhooks.listWebhookDeliveries,
  resendWebhookDelivery: webhooks.resendWebhookDelivery,
  putContentDocument: content.putContentDocument,
  createContentDocument: content.createContentDocument,
  listContentDocuments: content.listContentDocuments,
  getContentDocument: content.getContentDocument,
  runContentDocument: content.runContentDocument,
  internalPublishContent: contentInternal.internalPublishContent,
  internalRollbackContent: contentInternal.internalRollbackContent,
  internalDeleteContent: contentInternal.internalDeleteContent,
  internalGetContentDocument: contentInternal.internalGetContentDocument,
  internalSetContentStage: contentInternal.internalSetContentStage,
  internalListApiKeys: internalApiKeys.internalListApiKeys,
  internalListUsers: dashboardUsers.internalListUsers,
  internalUpdateUser: dashboardUsers.internalUpdateUser,
  internalListWebhooks: webhooks.internalListWebhooks,
  internalCreateWebhook: webhooks.internalCreateWebhook,
  internalUpdateWebhook: webhooks.internalUpdateWebhook,
  internalDeleteWebhook: webhooks.internalDeleteWebhook,
  internalRotateWebhookSecret: webhooks.internalRotateWebhookSecret,
  internalListWebhookDeliveries: webhooks.internalListWebhookDeliveries,
  internalResendWebhookDelivery: webhooks.internalResendWebhookDelivery,
  internalListContent: contentDashboard.internalListContent,
  internalListContentVersions: contentDashboard.internalListContentVersions,
};

/**
 * The handler of `operationId` with its types erased, for the pipeline. Sound because the pipeline validates the
 * path, query and body against the same operation's schemas (handlers/platform/validation.ts) before it calls it.
 */
export function implementationOf(operationId: string): RawHandler | undefined {
  return (typed as Record<string, unknown>)[operationId] as RawHandler | undefined;
}

/** The operationIds that have an implementation (the rest answer 501 not_implemented). */
export const implemented: ReadonlySet<string> = new Set(Object.keys(typed));
