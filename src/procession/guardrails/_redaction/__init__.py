"""The redaction engine: detectors, the streaming scanner, the redacting base, their data.

Private: the public names are in :mod:`procession.guardrails`.
"""
