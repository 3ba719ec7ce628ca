"""What the guardrails share: option checks, violation reporting, detection helpers.

Private: the public names are in :mod:`procession.guardrails`.
"""
