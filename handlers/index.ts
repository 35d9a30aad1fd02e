// Implementations by operationId. A route of the spec missing here answers 501 not_implemented.
import * as capture from './capture/routes.js';
import * as config from './config/routes.js';
import * as credential from './credential/routes.js';
import * as delivery from './delivery/routes.js';
import * as files from './files/routes.js';
import * as internalJobs from './internal/jobs.js';
import * as internalKeys from './internal/keys.js';
import * as internalProjects from './internal/projects.js';
import * as internalWorkspaces from './internal/workspaces.js';
import * as sync from './sync/routes.js';
import * as publish from './publish/routes.js';
import * as origin from './delivery/origin.js';
import type { Handler } from './platform/pipeline.js';
import * as translatePush from './translate/push.js';
import * as translateRead from './translate/read.js';

export const implementations: Record<string, Handler> = {
  translateUnits: translatePush.translateUnits,
  syncCatalog: sync.syncCatalog,
  publishVersion: publish.publishVersion,
  restoreVersion: publish.restoreVersion,
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
  internalListKeys: internalKeys.internalListKeys,
  internalUpdateKey: internalKeys.internalUpdateKey,
  internalPutTranslation: internalKeys.internalPutTranslation,
};
