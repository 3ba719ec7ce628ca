"""Text tools the guardrails build on: tokens, BM25, JSON repair, languages, tries, heads.

Private: the public names are in :mod:`procession.guardrails`.
"""
