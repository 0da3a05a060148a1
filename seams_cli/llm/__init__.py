"""Talking to a provider: the provider command and its cache (``provider``) and
the versioned prompt templates with model text quoted as data (``prompting``).
"""
