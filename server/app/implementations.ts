// Implementations by operationId. A route of the spec missing here answers 501 not_implemented.
import * as capture from '../http/routes/capture.js';
import * as checks from '../http/routes/checks.js';
import * as config from '../http/routes/config.js';
import * as content from '../http/routes/content.js';
import * as contentInternal from '../http/routes/content-internal.js';
import * as contentDashboard from '../http/routes/content-dashboard.js';
import * as credential from '../http/routes/credential.js';
import * as dashboardUsers from '../http/routes/users.js';
import * as delivery from '../http/routes/delivery.js';
import * as files from '../http/routes/files.js';
import * as internalApiKeys from '../http/routes/apikeys.js';
import * as internalDebug from '../http/routes/debug.js';
import * as internalJobs from '../http/routes/jobs.js';
import * as internalKeys from '../http/routes/keys.js';
import * as memory from '../http/routes/memory.js';
import * as internalProjects from '../http/routes/projects.js';
import * as internalOverview from '../http/routes/overview.js';
import * as internalWorkspaces from '../http/routes/workspaces.js';
import * as review from '../http/routes/review.js';
import * as operations from '../http/routes/operations.js';
import * as operationsInternal from '../http/routes/operations-internal.js';
import * as sync from '../http/routes/sync.js';
import * as imports from '../http/routes/imports.js';
import * as publish from '../http/routes/publish.js';
import * as publishInternal from '../http/routes/publish-internal.js';
import * as publishVersions from '../http/routes/versions.js';
import * as origin from '../http/routes/origin.js';
import * as outdated from '../http/routes/outdated.js';
import type { OperationId } from '../http/contract.js';
import type { Handler, RawHandler } from '../http/pipeline.js';
import * as translatePush from '../http/routes/push.js';
import * as translateRead from '../http/routes/read.js';
import * as translateStatus from '../http/routes/status.js';
import * as terms from '../http/routes/terms.js';
import * as webhooks from '../http/routes/webhooks.js';

const typed: { [Id in OperationId]?: Handler<Id> } = {
  translateUnits: translatePush.translateUnits,
  syncCatalog: sync.syncCatalog,
  importTranslations: imports.importTranslations,
  publishVersion: publish.publishVersion,
  previewPublish: publish.previewPublish,
  restoreVersion: publish.restoreVersion,
  listVersions: publishVersions.listVersions,
  getProjectStatus: translateStatus.getProjectStatus,
  retranslateOutdated: outdated.retranslateOutdated,
  retranslateCells: outdated.retranslateCells,
  getManifest: origin.getManifest,
  getBundle: origin.getBundle,
  getDomainManifest: origin.getDomainManifest,
  getDomainBundle: origin.getDomainBundle,
  getTranslations: translateRead.getTranslations,
  internalExportVersion: translateRead.internalExportVersion,
  listCheckResults: checks.listCheckResults,
  internalGetCheckSettings: checks.internalGetCheckSettings,
  internalPutCheckSettings: checks.internalPutCheckSettings,
  getRequestRecord: translateRead.getRequestRecord,
  captureUnits: capture.captureUnits,
  addLanguage: config.addLanguage,
  addOutputFormat: config.addOutputFormat,
  removeOutputFormat: config.removeOutputFormat,
  getCredential: credential.getCredential,
  createOperation: operations.createOperation,
  getOperation: operations.getOperation,
  cancelOperation: operations.cancelOperation,
  searchKeys: internalKeys.searchKeys,
  getKey: review.getKey,
  putTranslation: internalKeys.putTranslation,
  getProjectMeta: files.getProjectMeta,
  getPricing: delivery.getPricing,
  getDeliveryHealth: delivery.getHealth,
  internalCreateWorkspace: internalWorkspaces.internalCreateWorkspace,
  internalUpdateWorkspace: internalWorkspaces.internalUpdateWorkspace,
  internalAdjustCredits: internalWorkspaces.internalAdjustCredits,
  internalCreateProject: internalProjects.internalCreateProject,
  internalGetProject: internalProjects.internalGetProject,
  internalUpdateProject: internalProjects.internalUpdateProject,
  internalGetFillUsage: internalProjects.internalGetFillUsage,
  internalListEvents: internalProjects.internalListEvents,
  internalRemoveLanguage: internalProjects.internalRemoveLanguage,
  internalAddLanguage: config.internalAddLanguage,
  internalAddOutputFormat: config.internalAddOutputFormat,
  internalRemoveOutputFormat: config.internalRemoveOutputFormat,
  internalCreateApiKey: internalProjects.internalCreateApiKey,
  internalRevokeApiKey: internalProjects.internalRevokeApiKey,
  internalRunDueJobs: internalJobs.internalRunDueJobs,
  internalDebugMetrics: internalDebug.internalDebugMetrics,
  internalListKeys: internalKeys.internalListKeys,
  internalUpdateKey: internalKeys.internalUpdateKey,
  internalListKeyComments: internalKeys.internalListKeyComments,
  internalAddKeyComment: internalKeys.internalAddKeyComment,
  internalDeleteKeyComment: internalKeys.internalDeleteKeyComment,
  internalListKeyScreenshots: internalKeys.internalListKeyScreenshots,
  internalSuggestTranslation: internalKeys.internalSuggestTranslation,
  internalAddKeyScreenshot: internalKeys.internalAddKeyScreenshot,
  internalGetKeyScreenshot: internalKeys.internalGetKeyScreenshot,
  internalDeleteKeyScreenshot: internalKeys.internalDeleteKeyScreenshot,
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
  listTerms: terms.listTerms,
  createTerm: terms.createTerm,
  updateTerm: terms.updateTerm,
  deleteTerm: terms.deleteTerm,
  importTerms: terms.importTerms,
  exportTerms: terms.exportTerms,
  internalListTerms: terms.internalListTerms,
  internalCreateTerm: terms.internalCreateTerm,
  internalGetTerm: terms.internalGetTerm,
  internalUpdateTerm: terms.internalUpdateTerm,
  internalDeleteTerm: terms.internalDeleteTerm,
  internalMatchTerms: terms.internalMatchTerms,
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
  internalRunContentDocument: content.internalRunContentDocument,
  internalPublishContent: contentInternal.internalPublishContent,
  internalRollbackContent: contentInternal.internalRollbackContent,
  internalDeleteContent: contentInternal.internalDeleteContent,
  internalGetContentDocument: contentInternal.internalGetContentDocument,
  internalSetContentStage: contentInternal.internalSetContentStage,
  internalEditContentUnit: contentInternal.internalEditContentUnit,
  internalListApiKeys: internalApiKeys.internalListApiKeys,
  internalListUsers: dashboardUsers.internalListUsers,
  internalUpdateUser: dashboardUsers.internalUpdateUser,
  internalDeleteUser: dashboardUsers.internalDeleteUser,
  internalResetUserPassword: dashboardUsers.internalResetUserPassword,
  internalEndUserSessions: dashboardUsers.internalEndUserSessions,
  internalChangeOwnPassword: dashboardUsers.internalChangeOwnPassword,
  internalListWebhooks: webhooks.internalListWebhooks,
  internalCreateWebhook: webhooks.internalCreateWebhook,
  internalUpdateWebhook: webhooks.internalUpdateWebhook,
  internalDeleteWebhook: webhooks.internalDeleteWebhook,
  internalRotateWebhookSecret: webhooks.internalRotateWebhookSecret,
  internalListWebhookDeliveries: webhooks.internalListWebhookDeliveries,
  internalResendWebhookDelivery: webhooks.internalResendWebhookDelivery,
  internalTestWebhook: webhooks.internalTestWebhook,
  internalListContent: contentDashboard.internalListContent,
  internalListContentVersions: contentDashboard.internalListContentVersions,
  getMemorySuggestions: memory.getMemorySuggestions,
  getMemoryLeverage: memory.getMemoryLeverage,
  exportMemory: memory.exportMemory,
  importMemory: memory.importMemory,
  internalMemorySuggestions: memory.internalMemorySuggestions,
  internalMemoryLeverage: memory.internalMemoryLeverage,
};

/**
 * The handler of `operationId` with its types erased, for the pipeline. Sound because the pipeline validates the
 * path, query and body against the same operation's schemas (server/http/validation.ts) before it calls it.
 */
export function implementationOf(operationId: string): RawHandler | undefined {
  return (typed as Record<string, unknown>)[operationId] as RawHandler | undefined;
}

/** The operationIds that have an implementation (the rest answer 501 not_implemented). */
export const implemented: ReadonlySet<string> = new Set(Object.keys(typed));
