"""The moderation engine: lexicon, context rules, classifier heads, weights (``data/``).

Private: the public names are in :mod:`procession.guardrails`.
"""
