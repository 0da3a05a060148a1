"""The LLM workflows behind the commands: the scratch copy every answer is
judged in (``scratch``), drafted generator packages (``generator_draft``) and
model suggestions (``suggest``). They ask, build and judge; only the commands
write to the project.
"""
