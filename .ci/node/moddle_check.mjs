// Read BPMN and DMN files the way Camunda Modeler does (bpmn-moddle / dmn-moddle) and print, for each
// file, one JSON line: {"file": ..., "warnings": [...], "error": ...}. seams' tests compare the
// warnings of a file before and after an edit (docs/edit.md). Usage: node moddle_check.mjs FILE...
// A file ending in .dmn is read with dmn-moddle, any other with bpmn-moddle.
import { readFile } from 'node:fs/promises';

import { BpmnModdle } from 'bpmn-moddle';
import { DmnModdle } from 'dmn-moddle';

const bpmn = BpmnModdle();
const dmn = DmnModdle();

for (const file of process.argv.slice(2)) {
  const xml = await readFile(file, 'utf8');
  const moddle = file.endsWith('.dmn') ? dmn : bpmn;
  let result;
  try {
    const { warnings } = await moddle.fromXML(xml, moddle === bpmn ? 'bpmn:Definitions' : 'dmn:Definitions');
    result = { file, warnings: warnings.map((w) => w.message) };
  } catch (error) {
    result = { file, warnings: [], error: String(error.message || error) };
  }
  process.stdout.write(JSON.stringify(result) + '\n');
}
