// Picks the translation engine from the configuration, once at startup.
import type { Config } from '../config.js';
import { OpenAIEngine, type OpenAIEngineOptions } from './openai.js';
import { PseudoEngine } from './pseudo.js';
import type { TranslationEngine } from './types.js';

/**
 * The configured engine, or null for `none` (callers answer 503 unavailable). Throws at startup when `openai` lacks
 * OPENAI_BASE_URL or OPENAI_MODEL. `overrides` tunes the OpenAI engine (timeouts, retries, concurrency).
 */
export function createEngine(config: Config, overrides: Partial<OpenAIEngineOptions> = {}): TranslationEngine | null {
  switch (config.translationEngine) {
    case 'pseudo':
      return new PseudoEngine();
    case 'openai': {
      const { baseUrl, apiKey, model, images } = config.openai;
      const missing = [!baseUrl && 'OPENAI_BASE_URL', !model && 'OPENAI_MODEL'].filter(Boolean);
      if (missing.length) throw new Error(`TRANSLATION_ENGINE=openai needs ${missing.join(' and ')}`);
      try {
        new URL(baseUrl!);
      } catch {
        throw new Error(`OPENAI_BASE_URL must be an absolute URL such as http://127.0.0.1:11434/v1`);
      }
      return new OpenAIEngine({ baseUrl: baseUrl!, apiKey: apiKey || undefined, model: model!, images, ...overrides });
    }
    case 'none':
      return null;
    default:
      throw new Error(`unknown translation engine ${JSON.stringify(config.translationEngine)}`);
  }
}
