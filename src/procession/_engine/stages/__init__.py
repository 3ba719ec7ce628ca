"""The stages of a run, one module each, in lifecycle order (``docs/lifecycle.md``).

``input`` (``process_input``, ``process_input_step``, ``process_llm_request``), ``model`` (the
model call, its stream's special chunks, ``process_llm_response``), ``output``
(``process_output_step``, step results, ``process_output_result``, endings), ``tools`` (running
tools, ``process_tool_result``), ``errors`` (``process_api_error``) and ``persist`` (memory's
commit). Each is a set of functions taking the run's state and its hook runner, applying its
own hooks' results, and reporting a :data:`~procession._engine.outcomes.Stop` or ``None``.
"""
