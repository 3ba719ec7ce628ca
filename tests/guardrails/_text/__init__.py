"""Tests of procession.guardrails._text, the private engine (mirrors the package)."""
