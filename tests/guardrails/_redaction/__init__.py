"""Tests of procession.guardrails._redaction, the private engine (mirrors the package)."""
