// The format registry (packages/core/src/formats/index.ts) against the contract: its ids are the spec's format enums,
// and what it says of each format is what spec/openapi.yaml documents (delivery object extensions, pull content
// types, which formats syncCatalog takes, the one all-language format).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import YAML from 'yaml';
import { FORMAT_IDS, REGISTRY } from '../../packages/core/src/formats/index.js';

const root = path.resolve(import.meta.dirname, '../..');
const spec = YAML.parse(readFileSync(path.join(root, 'spec/openapi.yaml'), 'utf8')) as {
  components: { schemas: { OutputFormatId: { enum: string[] } } };
};

/** Every `enum` of the spec that names a format id (the schema and the copies inlined where x-error-codes apply). */
function formatEnums(node: unknown, out: string[][] = []): string[][] {
  if (Array.isArray(node)) for (const n of node) formatEnums(n, out);
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === 'enum' && Array.isArray(v) && v.includes('xcstrings')) out.push(v as string[]);
      else formatEnums(v, out);
    }
  }
  return out;
}

test("the registry holds exactly the spec's format ids, in its order", (t) => {
  t.deepEqual(FORMAT_IDS, spec.components.schemas.OutputFormatId.enum);
  const enums = formatEnums(spec);
  t.true(enums.length >= 3, "the schema, the pull's format parameter and addOutputFormat's body");
  for (const e of enums) t.deepEqual(e, FORMAT_IDS);
});

test('what the registry says of each format is what the spec documents', (t) => {
  const extension = Object.fromEntries(FORMAT_IDS.map((id) => [id, REGISTRY[id].extension]));
  t.deepEqual(extension, {
    json: 'json',
    nested_json: 'json',
    angular_json: 'json',
    ios_strings: 'strings',
    xcstrings: 'xcstrings',
    android_xml: 'xml',
    arb: 'arb',
    po: 'po',
    xliff12: 'xlf',
    xliff20: 'xlf',
  });
  const pullType = Object.fromEntries(FORMAT_IDS.map((id) => [id, REGISTRY[id].contentType.split(';')[0]]));
  t.deepEqual(pullType, {
    json: 'application/json',
    nested_json: 'application/json',
    angular_json: 'application/json',
    arb: 'application/json',
    xcstrings: 'application/json',
    ios_strings: 'text/plain',
    android_xml: 'application/xml',
    po: 'text/x-gettext-translation',
    xliff12: 'application/xliff+xml',
    xliff20: 'application/xliff+xml',
  });
  t.deepEqual(
    FORMAT_IDS.filter((id) => REGISTRY[id].syncable),
    ['json', 'nested_json', 'angular_json', 'xcstrings'],
  );
  t.deepEqual(
    FORMAT_IDS.filter((id) => REGISTRY[id].multiLanguage),
    ['xcstrings'],
  );
  for (const id of FORMAT_IDS) t.is(REGISTRY[id].module.id, id, `${id}'s module`);
});
