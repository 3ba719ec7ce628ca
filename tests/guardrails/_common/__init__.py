"""Tests of procession.guardrails._common, the private engine (mirrors the package)."""
