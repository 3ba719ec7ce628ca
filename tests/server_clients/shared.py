"""Values the served app modules and the tests share (importing them starts no server)."""

API_KEY = "alice-key-0123456789abcdef"
"""The API key of resource ``alice``."""

JWT_SECRET = "a-shared-secret-of-at-least-32-bytes!"
"""The HS256 secret the JWTs of the tests are signed with."""

FEEDBACK = "[Processor Feedback]"
"""How a processor's retry feedback starts in the prompt."""

RUDE = "That is a rude question."
"""``support``'s first answer to a rude question, which ``polite`` rejects."""

APOLOGY = "Sorry, happy to help."
"""``support``'s second answer, after the feedback."""

SLOW_DELTAS = [f"w{i} " for i in range(100)]
"""What ``slow`` streams, one delta every 20 ms."""

SLOW_DELAY = 0.02
"""Seconds between two of ``slow``'s deltas."""
