// Read DMN files as dmn-js does: DMN 1.1 and 1.2 migrated to 1.3 with @bpmn-io/dmn-migrate,
// then parsed with dmn-moddle. Prints "ok <file>" or "problem <file>: <warning>" per file;
// a decision without a decision table, or without a shape in a file that has a diagram, is a
// problem too. Exits 1 when any file has a problem. Usage: node validate_dmn.mjs NODE_MODULES FILE...
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [modules, ...files] = process.argv.slice(2);
const load = (name) => import(pathToFileURL(join(modules, name, 'dist', 'index.js')).href);
const moddle = await load('dmn-moddle');
const DmnModdle = moddle.default ?? moddle.DmnModdle;
const { migrateDiagram } = await load('@bpmn-io/dmn-migrate');

let failed = false;
for (const file of files) {
  const migrated = await migrateDiagram(readFileSync(file, 'utf8'));
  const { rootElement, warnings } = await new DmnModdle().fromXML(migrated, 'dmn:Definitions');
  const problems = warnings.map((warning) => warning.message.replace(/\s+/g, ' '));
  const decisions = rootElement.drgElement.filter((element) => element.$type === 'dmn:Decision');
  const diagrams = rootElement.dmnDI ? rootElement.dmnDI.diagrams || [] : [];
  const shown = new Set(diagrams.flatMap((diagram) => diagram.diagramElements || [])
    .map((shape) => shape.dmnElementRef && shape.dmnElementRef.id));
  for (const decision of decisions) {
    const table = decision.decisionLogic;
    if (!table || table.$type !== 'dmn:DecisionTable') problems.push(`decision ${decision.id} has no decision table`);
    if (diagrams.length && !shown.has(decision.id)) problems.push(`decision ${decision.id} has no DMNShape`);
  }
  if (problems.length) {
    failed = true;
    console.log(`problem ${file}: ${problems.join('; ')}`);
  } else {
    console.log(`ok ${file}: ${decisions.map((decision) => decision.id).join(' ')}`);
  }
}
process.exit(failed ? 1 : 0);
