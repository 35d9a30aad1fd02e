// A small project for the runtime client's tests, made and published through the real APIs: sources pushed with
// POST /translate, translations set as a person sets them (internal PUT …/translations/{lang}, every language
// manual so no engine touches them), versions minted with POST /publish.
import { createTestProject, type TestProject, type TestService } from './service.js';

/** Source per key. */
const SOURCES: Record<string, string> = {
  'home.title': 'Welcome',
  'cart.empty': 'Your cart is empty',
  'common.ok': 'OK',
};

/** Translations per API language code (lowercase), then per key. */
type Values = Record<string, Record<string, string>>;

export const VALUES: Values = {
  de: { 'home.title': 'Willkommen', 'cart.empty': 'Dein Warenkorb ist leer', 'common.ok': 'OK' },
  pt: { 'home.title': 'Bem-vindo', 'cart.empty': 'Seu carrinho está vazio', 'common.ok': 'OK' },
  'zh-hant': { 'home.title': '歡迎', 'cart.empty': '您的購物車是空的', 'common.ok': '確定' },
};

interface StringsProject extends TestProject {
  /** GET /meta's deliveryUrl on this test service: `<delivery origin>/v1/projects/<id>`. */
  deliveryUrl: string;
  versionId: string;
  /** Sets these translations and publishes; resolves to the new version's id. */
  publish(values: Values): Promise<string>;
}

export async function stringsProject(svc: TestService, values: Values = VALUES): Promise<StringsProject> {
  const p = await createTestProject(svc, {
    languages: Object.keys(VALUES).map((code) => ({ code, fillMode: 'manual' as const })),
  });
  const projectId = p.projectId;
  const pushed = await p.client.POST('/projects/{projectId}/translate', {
    params: { path: { projectId } },
    body: { units: Object.entries(SOURCES).map(([key, source]) => ({ key, source })) },
  });
  if (pushed.error) throw new Error(`push: ${JSON.stringify(pushed.error)}`);
  async function publish(vals: Values): Promise<string> {
    for (const [lang, byKey] of Object.entries(vals)) {
      for (const [key, value] of Object.entries(byKey)) {
        const r = await svc.admin.PUT('/projects/{projectId}/keys/{key}/translations/{lang}', {
          params: { path: { projectId, key, lang } },
          body: { value, status: 'approved' },
        });
        if (r.error) throw new Error(`${key} [${lang}]: ${JSON.stringify(r.error)}`);
      }
    }
    const v = await p.client.POST('/projects/{projectId}/publish', { params: { path: { projectId } } });
    if (!v.data) throw new Error(`publish: ${JSON.stringify(v.error)}`);
    return v.data.versionId;
  }
  const versionId = await publish(values);
  return { ...p, deliveryUrl: `${svc.deliveryUrl}/projects/${projectId}`, versionId, publish };
}
