"""Archive Invoice: a hand-written handler (the Java delegate of the Camunda example only logs)."""


def handle(inputs, bindings):
    return {}
