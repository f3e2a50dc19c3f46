// Neo4j's own Cypher linter (@neo4j-cypher/language-support), offline.
//
// stdin:  JSON {"name": "cypher statement", ...}
// argv:   optional Cypher version, "5" (default) or "25"; then optional "plugins" to accept APOC and GDS
// stdout: JSON {"name": [{"severity": "error" | "warning" | "info" | "hint", "message", "line", "column",
//                          "offset"}, ...], ...}   (line and column 1-based, offset 0-based)
//
// The functions and procedures are the package's testData.mockSchema: Neo4j 5 and 25 built-ins plus the
// APOC and GDS plugins, which a stock Neo4j server does not have, so they are dropped unless asked for
// (this also makes each lint ~3x faster: the package re-serialises the registry on every call). The mock's
// labels, relationship types and property keys are a movie demo's, so they are left out: the linter then
// checks no names against the database. Undefined $parameters are still reported; the Python side
// (tests/support/cypher_lint.py) decides what to ignore.
import { lintCypherQuery, testData } from '@neo4j-cypher/language-support';

const SEVERITY = { 1: 'error', 2: 'warning', 3: 'info', 4: 'hint' };

const version = `CYPHER ${process.argv[2] ?? '5'}`;
const withPlugins = process.argv[3] === 'plugins';
const mock = testData.mockSchema;
if (!(version in mock.functions)) {
  process.stderr.write(`lint.mjs: unknown Cypher version ${version}; known: ${Object.keys(mock.functions)}\n`);
  process.exit(2);
}
const isPlugin = (name) => name.startsWith('apoc.') || name.startsWith('gds.');
const registry = (byVersion) =>
  Object.fromEntries(
    Object.entries(byVersion).map(([v, entries]) => [
      v,
      withPlugins ? entries : Object.fromEntries(Object.entries(entries).filter(([name]) => !isPlugin(name))),
    ]),
  );
const schema = { functions: registry(mock.functions), procedures: registry(mock.procedures), defaultLanguage: version };

let input = '';
for await (const chunk of process.stdin) input += chunk;
const statements = JSON.parse(input);

// Neo4j's semantic analysis (compiled to JavaScript) costs ~100 ms of CPU per statement: lint each text once
const seen = new Map();
const findings = {};
for (const [name, query] of Object.entries(statements)) {
  const text = String(query);
  if (!seen.has(text)) seen.set(text, lintCypherQuery(text, schema).diagnostics);
  findings[name] = seen.get(text).map((d) => ({
    severity: SEVERITY[d.severity] ?? String(d.severity),
    message: d.message,
    line: d.range.start.line + 1,
    column: d.range.start.character + 1,
    offset: d.offsets?.start ?? null,
  }));
}
process.stdout.write(JSON.stringify(findings));
