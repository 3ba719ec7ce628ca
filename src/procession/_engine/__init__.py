"""The engine: runs one agent call from a frozen spec. Internal, not public API.

Nothing here is a stable interface: names, signatures and modules may change in any release
(the way openai-agents keeps ``run_internal/``). Use :class:`procession.Agent` instead. The
engine never imports ``Agent``; ``agent.py`` checks its arguments into an ``AgentSpec`` and
calls in here.
"""
