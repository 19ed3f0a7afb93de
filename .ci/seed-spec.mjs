// The shared OpenAPI description is Zulip's at feature level 469; the founding document (level 494)
// is newer and wins where they differ. This writes a copy of the description with exactly the
// founding document's additions that Confab serves, so the conformance checker judges responses
// by level 494. Each addition names the seed section it comes from.
//
//   node .ci/seed-spec.mjs IN.json OUT.json
import { readFileSync, writeFileSync } from 'node:fs';

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error('usage: node .ci/seed-spec.mjs IN.json OUT.json');
  process.exit(2);
}
const spec = JSON.parse(readFileSync(input, 'utf8'));

function at(path) {
  let node = spec;
  for (const key of path) {
    node = node?.[key];
    if (node === undefined) throw new Error(`seed-spec: ${path.join('/')} not found in ${input}`);
  }
  return node;
}

const jsonSchema = (pathKey, method) => at(['paths', pathKey, method, 'responses', '200', 'content', 'application/json', 'schema', 'allOf', 1]);

// Seed "Linkifier" object: example_input, reverse_template, alternative_url_templates.
const linkifierFields = {
  example_input: { type: 'string', nullable: true },
  reverse_template: { type: 'string', nullable: true },
  alternative_url_templates: { type: 'array', items: { type: 'string' } },
};
const linkifierItems = [
  jsonSchema('/realm/linkifiers', 'get').properties.linkifiers.items,
  jsonSchema('/register', 'post').properties.realm_linkifiers.items,
  ...at(['paths', '/events', 'get', 'responses', '200', 'content', 'application/json', 'schema', 'allOf', 1, 'properties', 'events', 'items', 'oneOf'])
    .filter((e) => e.properties?.realm_linkifiers?.items?.properties?.url_template)
    .map((e) => e.properties.realm_linkifiers.items),
];
for (const items of linkifierItems) Object.assign(items.properties, linkifierFields);

// Seed "Register response": has_videocall_token (feature level 493).
jsonSchema('/register', 'post').properties.has_videocall_token = { type: 'boolean' };

writeFileSync(output, JSON.stringify(spec));
console.log(`seed-spec: ${linkifierItems.length} linkifier schemas and the register response extended to level 494 → ${output}`);
