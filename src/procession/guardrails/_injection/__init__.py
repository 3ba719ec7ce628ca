"""The prompt-injection engine: its rules, the classifier head and its weights (``data/``).

Private: the public names are in :mod:`procession.guardrails`.
"""
