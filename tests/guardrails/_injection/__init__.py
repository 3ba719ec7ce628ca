"""Tests of procession.guardrails._injection, the private engine (mirrors the package)."""
