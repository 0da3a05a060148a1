"""Hand-owned handlers of the leave-request process (ADR-0012).

One module per BPMN service task; ``seams generate`` never writes here.
"""
