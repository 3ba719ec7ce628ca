"""Suite-wide settings."""

from hypothesis import settings

# The CI machine is shared and small: a property test must not fail because one example hit a
# collector pause, so examples get no deadline (their count still bounds the run).
settings.register_profile("procession", deadline=None)
settings.load_profile("procession")
