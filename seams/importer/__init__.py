"""Bringing an existing BPMN/DMN model into seams, and starting an empty project.

Pure functions from parsed payloads to model facts and TriG text: nothing
here writes a file (``seams init`` in seams_cli does, atomically) and
nothing here guesses what a payload does not say. What cannot be inferred
(a variable's datatype with no evidence, a service task's reads and writes,
examples) is left out, so ``seams check`` lists it as the user's to-do list
(docs/init.md).
"""
