"""Tests of procession.guardrails._moderation, the private engine (mirrors the package)."""
