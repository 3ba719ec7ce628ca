"""The compiled ``__init__`` of each record ``import procession`` makes (record 0382).

Written by ``scripts/gen_record_inits.py``; do not edit. ``procession._records`` looks up the
source it would compile in :data:`CODE` and builds the function from the code object, compiled
once into this module's ``.pyc``, instead of compiling it on every start. Each function here is
that source without its defaults (a code object holds none).
"""

from __future__ import annotations

from types import CodeType
from typing import Any

__all__ = ["CODE"]

_set: Any = None
EDITS: Any = None
FACTORY: Any = None
PartList: Any = None

_f_builder: Any = None
_f_created_at: Any = None
_f_error_processors: Any = None
_f_files: Any = None
_f_input_processors: Any = None
_f_messages: Any = None
_f_model_settings: Any = None
_f_output_processors: Any = None
_f_params: Any = None
_f_prompt: Any = None
_f_provider_options: Any = None
_f_request: Any = None
_f_response: Any = None
_f_settings: Any = None
_f_sources: Any = None
_f_steps: Any = None
_f_tool_calls: Any = None
_f_tool_choice: Any = None
_f_tool_results: Any = None
_f_tools: Any = None
_f_usage: Any = None
_f_warnings: Any = None


def _init_0(self: Any) -> None:
    pass


def _init_1(
    self: Any,
    *,
    agent_id: Any,
    model: Any,
    tools: Any,
    tool_choice: Any,
    active_tools: Any,
    provider_options: Any,
    model_settings: Any,
    structured_output: Any,
    max_steps: Any,
    max_processor_retries: Any,
    max_retries: Any,
    input_processors: Any,
    output_processors: Any,
    error_processors: Any,
    prepare_step: Any,
    memory: Any,
    release: Any,
    journal: Any,
    approvals: Any,
    require_tool_approval: Any,
) -> None:
    self.agent_id = agent_id
    self.model = model
    self.tools = tools
    self.tool_choice = tool_choice
    self.active_tools = active_tools
    self.provider_options = (
        _f_provider_options() if provider_options is FACTORY else provider_options
    )
    self.model_settings = _f_model_settings() if model_settings is FACTORY else model_settings
    self.structured_output = structured_output
    self.max_steps = max_steps
    self.max_processor_retries = max_processor_retries
    self.max_retries = max_retries
    self.input_processors = (
        _f_input_processors() if input_processors is FACTORY else input_processors
    )
    self.output_processors = (
        _f_output_processors() if output_processors is FACTORY else output_processors
    )
    self.error_processors = (
        _f_error_processors() if error_processors is FACTORY else error_processors
    )
    self.prepare_step = prepare_step
    self.memory = memory
    self.release = release
    self.journal = journal
    self.approvals = approvals
    self.require_tool_approval = require_tool_approval


def _init_2(
    self: Any, *, error: Any, type: Any, provider_metadata: Any, created_at: Any, extra: Any
) -> None:
    _set(self, "error", error)
    _set(self, "type", type)
    _set(self, "provider_metadata", provider_metadata)
    _set(self, "created_at", created_at)
    _set(self, "extra", extra)
    EDITS.count += 1


def _init_3(
    self: Any,
    *,
    id: Any,
    name: Any,
    description: Any,
    instructions: Any,
    model: Any,
    tools: Any,
    input_processors: Any,
    output_processors: Any,
    error_processors: Any,
    max_processor_retries: Any,
    max_retries: Any,
    max_steps: Any,
    tool_choice: Any,
    provider_options: Any,
    model_settings: Any,
    memory: Any,
    approvals: Any,
) -> None:
    _set(self, "id", id)
    _set(self, "name", name)
    _set(self, "description", description)
    _set(self, "instructions", instructions)
    _set(self, "model", model)
    _set(self, "tools", _f_tools() if tools is FACTORY else tools)
    _set(self, "input_processors", input_processors)
    _set(self, "output_processors", output_processors)
    _set(self, "error_processors", error_processors)
    _set(self, "max_processor_retries", max_processor_retries)
    _set(self, "max_retries", max_retries)
    _set(self, "max_steps", max_steps)
    _set(self, "tool_choice", tool_choice)
    _set(
        self,
        "provider_options",
        _f_provider_options() if provider_options is FACTORY else provider_options,
    )
    _set(
        self, "model_settings", _f_model_settings() if model_settings is FACTORY else model_settings
    )
    _set(self, "memory", memory)
    _set(self, "approvals", approvals)


def _init_4(
    self: Any,
    *,
    id: Any,
    role: Any,
    content: Any,
    created_at: Any,
    thread_id: Any,
    resource_id: Any,
    type: Any,
    extra: Any,
) -> None:
    _set(self, "id", id)
    _set(self, "role", role)
    _set(self, "content", content)
    _set(self, "created_at", _f_created_at() if created_at is FACTORY else created_at)
    _set(self, "thread_id", thread_id)
    _set(self, "resource_id", resource_id)
    _set(self, "type", type)
    _set(self, "extra", extra)
    EDITS.count += 1


def _init_5(
    self: Any,
    *,
    messages: Any,
    lanes: Any,
    max_processor_retries: Any,
    max_retries: Any,
    max_steps: Any,
    model: Any,
    tools: Any,
    tool_choice: Any,
    active_tools: Any,
    provider_options: Any,
    model_settings: Any,
    instructions: Any,
    system: Any,
    context: Any,
    request_context: Any,
    abort_signal: Any,
    prepare_step: Any,
    structured_output: Any,
    run_id: Any,
    release: Any,
    journal: Any,
    approvals: Any,
    require_tool_approval: Any,
    inspect: Any,
    output_last: Any,
) -> None:
    self.messages = messages
    self.lanes = lanes
    self.max_processor_retries = max_processor_retries
    self.max_retries = max_retries
    self.max_steps = max_steps
    self.model = model
    self.tools = tools
    self.tool_choice = tool_choice
    self.active_tools = active_tools
    self.provider_options = provider_options
    self.model_settings = model_settings
    self.instructions = instructions
    self.system = system
    self.context = context
    self.request_context = request_context
    self.abort_signal = abort_signal
    self.prepare_step = prepare_step
    self.structured_output = structured_output
    self.run_id = run_id
    self.release = release
    self.journal = journal
    self.approvals = approvals
    self.require_tool_approval = require_tool_approval
    self.inspect = inspect
    self.output_last = output_last


def _init_6(
    self: Any,
    *,
    mime_type: Any,
    data: Any,
    type: Any,
    provider_metadata: Any,
    created_at: Any,
    extra: Any,
) -> None:
    _set(self, "mime_type", mime_type)
    _set(self, "data", data)
    _set(self, "type", type)
    _set(self, "provider_metadata", provider_metadata)
    _set(self, "created_at", created_at)
    _set(self, "extra", extra)
    EDITS.count += 1


def _init_7(
    self: Any, *, model: Any, type: Any, provider_metadata: Any, created_at: Any, extra: Any
) -> None:
    _set(self, "model", model)
    _set(self, "type", type)
    _set(self, "provider_metadata", provider_metadata)
    _set(self, "created_at", created_at)
    _set(self, "extra", extra)
    EDITS.count += 1


def _init_8(
    self: Any,
    *,
    parts: Any,
    format: Any,
    content: Any,
    tool_invocations: Any,
    reasoning: Any,
    experimental_attachments: Any,
    annotations: Any,
    metadata: Any,
    provider_metadata: Any,
    extra: Any,
) -> None:
    _set(self, "parts", parts if type(parts) is PartList else PartList(parts))
    _set(self, "format", format)
    _set(self, "content", content)
    _set(self, "tool_invocations", tool_invocations)
    _set(self, "reasoning", reasoning)
    _set(self, "experimental_attachments", experimental_attachments)
    _set(self, "annotations", annotations)
    _set(self, "metadata", metadata)
    _set(self, "provider_metadata", provider_metadata)
    _set(self, "extra", extra)
    EDITS.count += 1


def _init_9(
    self: Any,
    *,
    prompt: Any,
    tools: Any,
    tool_choice: Any,
    provider_options: Any,
    settings: Any,
    response_format: Any,
    abort_signal: Any,
) -> None:
    self.prompt = prompt
    self.tools = _f_tools() if tools is FACTORY else tools
    self.tool_choice = _f_tool_choice() if tool_choice is FACTORY else tool_choice
    self.provider_options = (
        _f_provider_options() if provider_options is FACTORY else provider_options
    )
    self.settings = _f_settings() if settings is FACTORY else settings
    self.response_format = response_format
    self.abort_signal = abort_signal


def _init_10(
    self: Any,
    *,
    reasoning: Any,
    details: Any,
    type: Any,
    provider_metadata: Any,
    created_at: Any,
    extra: Any,
) -> None:
    _set(self, "reasoning", reasoning)
    _set(self, "details", details)
    _set(self, "type", type)
    _set(self, "provider_metadata", provider_metadata)
    _set(self, "created_at", created_at)
    _set(self, "extra", extra)
    EDITS.count += 1


def _init_11(
    self: Any, *, source: Any, type: Any, provider_metadata: Any, created_at: Any, extra: Any
) -> None:
    _set(self, "source", source)
    _set(self, "type", type)
    _set(self, "provider_metadata", provider_metadata)
    _set(self, "created_at", created_at)
    _set(self, "extra", extra)
    EDITS.count += 1


def _init_12(
    self: Any,
    *,
    source_id: Any,
    media_type: Any,
    title: Any,
    filename: Any,
    type: Any,
    provider_metadata: Any,
    created_at: Any,
    extra: Any,
) -> None:
    _set(self, "source_id", source_id)
    _set(self, "media_type", media_type)
    _set(self, "title", title)
    _set(self, "filename", filename)
    _set(self, "type", type)
    _set(self, "provider_metadata", provider_metadata)
    _set(self, "created_at", created_at)
    _set(self, "extra", extra)
    EDITS.count += 1


def _init_13(
    self: Any,
    *,
    state: Any,
    tool_call_id: Any,
    tool_name: Any,
    args: Any,
    result: Any,
    is_error: Any,
    error_text: Any,
    raw_input: Any,
    approval: Any,
    step: Any,
    extra: Any,
) -> None:
    _set(self, "state", state)
    _set(self, "tool_call_id", tool_call_id)
    _set(self, "tool_name", tool_name)
    _set(self, "args", args)
    _set(self, "result", result)
    _set(self, "is_error", is_error)
    _set(self, "error_text", error_text)
    _set(self, "raw_input", raw_input)
    _set(self, "approval", approval)
    _set(self, "step", step)
    _set(self, "extra", extra)
    EDITS.count += 1


def _init_14(
    self: Any,
    *,
    step_number: Any,
    step: Any,
    checkpoint: Any,
    model_checkpoint: Any,
    steps_before: Any,
    retries: Any,
    builder: Any,
    tools: Any,
    prompt: Any,
    raw: Any,
    cached: Any,
    stream: Any,
    read: Any,
    guard: Any,
    request: Any,
    warnings: Any,
    finish: Any,
    structured: Any,
    objects: Any,
    result: Any,
    outcome: Any,
    edits: Any,
    verdict: Any,
    released: Any,
) -> None:
    self.step_number = step_number
    self.step = step
    self.checkpoint = checkpoint
    self.model_checkpoint = model_checkpoint
    self.steps_before = steps_before
    self.retries = retries
    self.builder = _f_builder() if builder is FACTORY else builder
    self.tools = _f_tools() if tools is FACTORY else tools
    self.prompt = _f_prompt() if prompt is FACTORY else prompt
    self.raw = raw
    self.cached = cached
    self.stream = stream
    self.read = read
    self.guard = guard
    self.request = _f_request() if request is FACTORY else request
    self.warnings = _f_warnings() if warnings is FACTORY else warnings
    self.finish = finish
    self.structured = structured
    self.objects = objects
    self.result = result
    self.outcome = outcome
    self.edits = edits
    self.verdict = verdict
    self.released = released


def _init_15(self: Any, *, stream: Any, request: Any, response: Any, warnings: Any) -> None:
    self.stream = stream
    self.request = _f_request() if request is FACTORY else request
    self.response = _f_response() if response is FACTORY else response
    self.warnings = _f_warnings() if warnings is FACTORY else warnings


def _init_16(
    self: Any, *, text: Any, type: Any, provider_metadata: Any, created_at: Any, extra: Any
) -> None:
    _set(self, "text", text)
    _set(self, "type", type)
    _set(self, "provider_metadata", provider_metadata)
    _set(self, "created_at", created_at)
    _set(self, "extra", extra)
    EDITS.count += 1


def _init_17(
    self: Any,
    *,
    tool_invocation: Any,
    type: Any,
    provider_executed: Any,
    title: Any,
    preliminary: Any,
    provider_metadata: Any,
    created_at: Any,
    extra: Any,
) -> None:
    _set(self, "tool_invocation", tool_invocation)
    _set(self, "type", type)
    _set(self, "provider_executed", provider_executed)
    _set(self, "title", title)
    _set(self, "preliminary", preliminary)
    _set(self, "provider_metadata", provider_metadata)
    _set(self, "created_at", created_at)
    _set(self, "extra", extra)
    EDITS.count += 1


def _init_18(
    self: Any, *, type: Any, data: Any, id: Any, provider_metadata: Any, created_at: Any, extra: Any
) -> None:
    _set(self, "type", type)
    _set(self, "data", data)
    _set(self, "id", id)
    _set(self, "provider_metadata", provider_metadata)
    _set(self, "created_at", created_at)
    _set(self, "extra", extra)
    EDITS.count += 1


def _init_19(self: Any, approved: Any, reason: Any) -> None:
    _set(self, "approved", approved)
    _set(self, "reason", reason)


def _init_20(self: Any, content: Any, provider_options: Any, role: Any) -> None:
    self.content = content
    self.provider_options = provider_options
    self.role = role


def _init_21(self: Any, description: Any, params: Any) -> None:
    _set(self, "description", description)
    _set(self, "params", _f_params() if params is FACTORY else params)


def _init_22(self: Any, error: Any) -> None:
    _set(self, "error", error)


def _init_23(self: Any, ids: Any, part_counts: Any) -> None:
    _set(self, "ids", ids)
    _set(self, "part_counts", part_counts)


def _init_24(
    self: Any,
    input_tokens: Any,
    output_tokens: Any,
    total_tokens: Any,
    reasoning_tokens: Any,
    cached_input_tokens: Any,
) -> None:
    self.input_tokens = input_tokens
    self.output_tokens = output_tokens
    self.total_tokens = total_tokens
    self.reasoning_tokens = reasoning_tokens
    self.cached_input_tokens = cached_input_tokens


def _init_25(self: Any, kind: Any, ids: Any, source: Any, tag: Any, text: Any) -> None:
    _set(self, "kind", kind)
    _set(self, "ids", ids)
    _set(self, "source", source)
    _set(self, "tag", tag)
    _set(self, "text", text)


def _init_26(
    self: Any,
    model: Any,
    tools: Any,
    tool_choice: Any,
    active_tools: Any,
    provider_options: Any,
    model_settings: Any,
    structured_output: Any,
    system: Any,
) -> None:
    self.model = model
    self.tools = tools
    self.tool_choice = tool_choice
    self.active_tools = active_tools
    self.provider_options = provider_options
    self.model_settings = model_settings
    self.structured_output = structured_output
    self.system = system


def _init_27(self: Any, name: Any) -> None:
    _set(self, "name", name)


def _init_28(
    self: Any,
    name: Any,
    description: Any,
    input_schema: Any,
    function: Any,
    args_model: Any,
    pass_model: Any,
    context_parameter: Any,
    is_async: Any,
    requires_approval: Any,
) -> None:
    self.name = name
    self.description = description
    self.input_schema = input_schema
    self.function = function
    self.args_model = args_model
    self.pass_model = pass_model
    self.context_parameter = context_parameter
    self.is_async = is_async
    self.requires_approval = requires_approval


def _init_29(self: Any, outcome: Any, data_chunks: Any, error: Any, tripwire: Any) -> None:
    _set(self, "outcome", outcome)
    _set(self, "data_chunks", data_chunks)
    _set(self, "error", error)
    _set(self, "tripwire", tripwire)


def _init_30(self: Any, payload: Any) -> None:
    _set(self, "payload", payload)


def _init_31(self: Any, processor_id: Any, message: Any, detail: Any, retry: Any) -> None:
    _set(self, "processor_id", processor_id)
    _set(self, "message", message)
    _set(self, "detail", detail)
    _set(self, "retry", retry)


def _init_32(self: Any, reason: Any, processor_id: Any, metadata: Any, api_error: Any) -> None:
    _set(self, "reason", reason)
    _set(self, "processor_id", processor_id)
    _set(self, "metadata", metadata)
    _set(self, "api_error", api_error)


def _init_33(
    self: Any,
    run_id: Any,
    text: Any,
    finish_reason: Any,
    tripwire: Any,
    steps: Any,
    usage: Any,
    object: Any,
    messages: Any,
    error: Any,
    response_message_id: Any,
) -> None:
    self.run_id = run_id
    self.text = text
    self.finish_reason = finish_reason
    self.tripwire = tripwire
    self.steps = _f_steps() if steps is FACTORY else steps
    self.usage = _f_usage() if usage is FACTORY else usage
    self.object = object
    self.messages = _f_messages() if messages is FACTORY else messages
    self.error = error
    self.response_message_id = response_message_id


def _init_34(
    self: Any, run_id: Any, tool_call_id: Any, tool_name: Any, args: Any, resource_id: Any
) -> None:
    _set(self, "run_id", run_id)
    _set(self, "tool_call_id", tool_call_id)
    _set(self, "tool_name", tool_name)
    _set(self, "args", args)
    _set(self, "resource_id", resource_id)


def _init_35(self: Any, schema: Any, model: Any, name: Any) -> None:
    _set(self, "schema", schema)
    _set(self, "model", model)
    _set(self, "name", name)


def _init_36(
    self: Any,
    step_number: Any,
    text: Any,
    reasoning: Any,
    tool_calls: Any,
    tool_results: Any,
    sources: Any,
    files: Any,
    finish_reason: Any,
    usage: Any,
    warnings: Any,
    request: Any,
    response: Any,
    provider_metadata: Any,
    model_id: Any,
) -> None:
    self.step_number = step_number
    self.text = text
    self.reasoning = reasoning
    self.tool_calls = _f_tool_calls() if tool_calls is FACTORY else tool_calls
    self.tool_results = _f_tool_results() if tool_results is FACTORY else tool_results
    self.sources = _f_sources() if sources is FACTORY else sources
    self.files = _f_files() if files is FACTORY else files
    self.finish_reason = finish_reason
    self.usage = _f_usage() if usage is FACTORY else usage
    self.warnings = _f_warnings() if warnings is FACTORY else warnings
    self.request = _f_request() if request is FACTORY else request
    self.response = _f_response() if response is FACTORY else response
    self.provider_metadata = provider_metadata
    self.model_id = model_id


def _init_37(self: Any, text: Any, reason: Any, processor_id: Any) -> None:
    _set(self, "text", text)
    _set(self, "reason", reason)
    _set(self, "processor_id", processor_id)


def _init_38(
    self: Any, tool_call_id: Any, tool_name: Any, args: Any, provider_executed: Any
) -> None:
    self.tool_call_id = tool_call_id
    self.tool_name = tool_name
    self.args = args
    self.provider_executed = provider_executed


def _init_39(
    self: Any,
    tool_call_id: Any,
    tool_name: Any,
    args: Any,
    result: Any,
    error: Any,
    provider_executed: Any,
) -> None:
    self.tool_call_id = tool_call_id
    self.tool_name = tool_name
    self.args = args
    self.result = result
    self.error = error
    self.provider_executed = provider_executed


def _init_40(
    self: Any, tool_call_id: Any, tool_name: Any, result: Any, error_text: Any, path: Any
) -> None:
    self.tool_call_id = tool_call_id
    self.tool_name = tool_name
    self.result = result
    self.error_text = error_text
    self.path = path


def _init_41(
    self: Any,
    tool_call_id: Any,
    tool_name: Any,
    writer: Any,
    request_context: Any,
    abort_signal: Any,
    messages: Any,
    run_id: Any,
) -> None:
    self.tool_call_id = tool_call_id
    self.tool_name = tool_name
    self.writer = writer
    self.request_context = request_context
    self.abort_signal = abort_signal
    self.messages = _f_messages() if messages is FACTORY else messages
    self.run_id = run_id


def _init_42(self: Any, type: Any, raw: Any) -> None:
    _set(self, "type", type)
    _set(self, "raw", raw)
    EDITS.count += 1


CODE: dict[str, CodeType] = {
    ("def __init__(self):\n    pass\n"): _init_0.__code__,
    (
        "def __init__(self, *, agent_id, model, tools, tool_choice=_d_tool_choi"
        "ce, active_tools=_d_active_tools, provider_options=FACTORY, model_sett"
        "ings=FACTORY, structured_output=_d_structured_output, max_steps=_d_max"
        "_steps, max_processor_retries=_d_max_processor_retries, max_retries=_d"
        "_max_retries, input_processors=FACTORY, output_processors=FACTORY, err"
        "or_processors=FACTORY, prepare_step=_d_prepare_step, memory=_d_memory,"
        " release=_d_release, journal=_d_journal, approvals=_d_approvals, requi"
        "re_tool_approval=_d_require_tool_approval):\n    self.agent_id = agent_"
        "id\n    self.model = model\n    self.tools = tools\n    self.tool_choice "
        "= tool_choice\n    self.active_tools = active_tools\n    self.provider_o"
        "ptions = _f_provider_options() if provider_options is FACTORY else pro"
        "vider_options\n    self.model_settings = _f_model_settings() if model_s"
        "ettings is FACTORY else model_settings\n    self.structured_output = st"
        "ructured_output\n    self.max_steps = max_steps\n    self.max_processor_"
        "retries = max_processor_retries\n    self.max_retries = max_retries\n   "
        " self.input_processors = _f_input_processors() if input_processors is "
        "FACTORY else input_processors\n    self.output_processors = _f_output_p"
        "rocessors() if output_processors is FACTORY else output_processors\n   "
        " self.error_processors = _f_error_processors() if error_processors is "
        "FACTORY else error_processors\n    self.prepare_step = prepare_step\n   "
        " self.memory = memory\n    self.release = release\n    self.journal = jo"
        "urnal\n    self.approvals = approvals\n    self.require_tool_approval = "
        "require_tool_approval\n"
    ): _init_1.__code__,
    (
        "def __init__(self, *, error, type=_d_type, provider_metadata=_d_provid"
        "er_metadata, created_at=_d_created_at, extra=_d_extra):\n    _set(self,"
        " 'error', error)\n    _set(self, 'type', type)\n    _set(self, 'provider"
        "_metadata', provider_metadata)\n    _set(self, 'created_at', created_at"
        ")\n    _set(self, 'extra', extra)\n    EDITS.count += 1\n"
    ): _init_2.__code__,
    (
        "def __init__(self, *, id, name, description=_d_description, instructio"
        "ns=_d_instructions, model=_d_model, tools=FACTORY, input_processors=_d"
        "_input_processors, output_processors=_d_output_processors, error_proce"
        "ssors=_d_error_processors, max_processor_retries=_d_max_processor_retr"
        "ies, max_retries=_d_max_retries, max_steps=_d_max_steps, tool_choice=_"
        "d_tool_choice, provider_options=FACTORY, model_settings=FACTORY, memor"
        "y=_d_memory, approvals=_d_approvals):\n    _set(self, 'id', id)\n    _se"
        "t(self, 'name', name)\n    _set(self, 'description', description)\n    _"
        "set(self, 'instructions', instructions)\n    _set(self, 'model', model)"
        "\n    _set(self, 'tools', _f_tools() if tools is FACTORY else tools)\n  "
        "  _set(self, 'input_processors', input_processors)\n    _set(self, 'out"
        "put_processors', output_processors)\n    _set(self, 'error_processors',"
        " error_processors)\n    _set(self, 'max_processor_retries', max_process"
        "or_retries)\n    _set(self, 'max_retries', max_retries)\n    _set(self, "
        "'max_steps', max_steps)\n    _set(self, 'tool_choice', tool_choice)\n   "
        " _set(self, 'provider_options', _f_provider_options() if provider_opti"
        "ons is FACTORY else provider_options)\n    _set(self, 'model_settings',"
        " _f_model_settings() if model_settings is FACTORY else model_settings)"
        "\n    _set(self, 'memory', memory)\n    _set(self, 'approvals', approval"
        "s)\n"
    ): _init_3.__code__,
    (
        "def __init__(self, *, id, role, content, created_at=FACTORY, thread_id"
        "=_d_thread_id, resource_id=_d_resource_id, type=_d_type, extra=_d_extr"
        "a):\n    _set(self, 'id', id)\n    _set(self, 'role', role)\n    _set(sel"
        "f, 'content', content)\n    _set(self, 'created_at', _f_created_at() if"
        " created_at is FACTORY else created_at)\n    _set(self, 'thread_id', th"
        "read_id)\n    _set(self, 'resource_id', resource_id)\n    _set(self, 'ty"
        "pe', type)\n    _set(self, 'extra', extra)\n    EDITS.count += 1\n"
    ): _init_4.__code__,
    (
        "def __init__(self, *, messages, lanes, max_processor_retries, max_retr"
        "ies, max_steps, model, tools, tool_choice, active_tools, provider_opti"
        "ons, model_settings, instructions, system, context, request_context, a"
        "bort_signal, prepare_step, structured_output, run_id, release, journal"
        "=_d_journal, approvals=_d_approvals, require_tool_approval=_d_require_"
        "tool_approval, inspect=_d_inspect, output_last=_d_output_last):\n    se"
        "lf.messages = messages\n    self.lanes = lanes\n    self.max_processor_r"
        "etries = max_processor_retries\n    self.max_retries = max_retries\n    "
        "self.max_steps = max_steps\n    self.model = model\n    self.tools = too"
        "ls\n    self.tool_choice = tool_choice\n    self.active_tools = active_t"
        "ools\n    self.provider_options = provider_options\n    self.model_setti"
        "ngs = model_settings\n    self.instructions = instructions\n    self.sys"
        "tem = system\n    self.context = context\n    self.request_context = req"
        "uest_context\n    self.abort_signal = abort_signal\n    self.prepare_ste"
        "p = prepare_step\n    self.structured_output = structured_output\n    se"
        "lf.run_id = run_id\n    self.release = release\n    self.journal = journ"
        "al\n    self.approvals = approvals\n    self.require_tool_approval = req"
        "uire_tool_approval\n    self.inspect = inspect\n    self.output_last = o"
        "utput_last\n"
    ): _init_5.__code__,
    (
        "def __init__(self, *, mime_type, data, type=_d_type, provider_metadata"
        "=_d_provider_metadata, created_at=_d_created_at, extra=_d_extra):\n    "
        "_set(self, 'mime_type', mime_type)\n    _set(self, 'data', data)\n    _s"
        "et(self, 'type', type)\n    _set(self, 'provider_metadata', provider_me"
        "tadata)\n    _set(self, 'created_at', created_at)\n    _set(self, 'extra"
        "', extra)\n    EDITS.count += 1\n"
    ): _init_6.__code__,
    (
        "def __init__(self, *, model=_d_model, type=_d_type, provider_metadata="
        "_d_provider_metadata, created_at=_d_created_at, extra=_d_extra):\n    _"
        "set(self, 'model', model)\n    _set(self, 'type', type)\n    _set(self, "
        "'provider_metadata', provider_metadata)\n    _set(self, 'created_at', c"
        "reated_at)\n    _set(self, 'extra', extra)\n    EDITS.count += 1\n"
    ): _init_7.__code__,
    (
        "def __init__(self, *, parts, format=_d_format, content=_d_content, too"
        "l_invocations=_d_tool_invocations, reasoning=_d_reasoning, experimenta"
        "l_attachments=_d_experimental_attachments, annotations=_d_annotations,"
        " metadata=_d_metadata, provider_metadata=_d_provider_metadata, extra=_"
        "d_extra):\n    _set(self, 'parts', (parts) if type((parts)) is PartList"
        " else PartList((parts)))\n    _set(self, 'format', format)\n    _set(sel"
        "f, 'content', content)\n    _set(self, 'tool_invocations', tool_invocat"
        "ions)\n    _set(self, 'reasoning', reasoning)\n    _set(self, 'experimen"
        "tal_attachments', experimental_attachments)\n    _set(self, 'annotation"
        "s', annotations)\n    _set(self, 'metadata', metadata)\n    _set(self, '"
        "provider_metadata', provider_metadata)\n    _set(self, 'extra', extra)\n"
        "    EDITS.count += 1\n"
    ): _init_8.__code__,
    (
        "def __init__(self, *, prompt, tools=FACTORY, tool_choice=FACTORY, prov"
        "ider_options=FACTORY, settings=FACTORY, response_format=_d_response_fo"
        "rmat, abort_signal=_d_abort_signal):\n    self.prompt = prompt\n    self"
        ".tools = _f_tools() if tools is FACTORY else tools\n    self.tool_choic"
        "e = _f_tool_choice() if tool_choice is FACTORY else tool_choice\n    se"
        "lf.provider_options = _f_provider_options() if provider_options is FAC"
        "TORY else provider_options\n    self.settings = _f_settings() if settin"
        "gs is FACTORY else settings\n    self.response_format = response_format"
        "\n    self.abort_signal = abort_signal\n"
    ): _init_9.__code__,
    (
        "def __init__(self, *, reasoning, details, type=_d_type, provider_metad"
        "ata=_d_provider_metadata, created_at=_d_created_at, extra=_d_extra):\n "
        "   _set(self, 'reasoning', reasoning)\n    _set(self, 'details', detail"
        "s)\n    _set(self, 'type', type)\n    _set(self, 'provider_metadata', pr"
        "ovider_metadata)\n    _set(self, 'created_at', created_at)\n    _set(sel"
        "f, 'extra', extra)\n    EDITS.count += 1\n"
    ): _init_10.__code__,
    (
        "def __init__(self, *, source, type=_d_type, provider_metadata=_d_provi"
        "der_metadata, created_at=_d_created_at, extra=_d_extra):\n    _set(self"
        ", 'source', source)\n    _set(self, 'type', type)\n    _set(self, 'provi"
        "der_metadata', provider_metadata)\n    _set(self, 'created_at', created"
        "_at)\n    _set(self, 'extra', extra)\n    EDITS.count += 1\n"
    ): _init_11.__code__,
    (
        "def __init__(self, *, source_id, media_type, title, filename=_d_filena"
        "me, type=_d_type, provider_metadata=_d_provider_metadata, created_at=_"
        "d_created_at, extra=_d_extra):\n    _set(self, 'source_id', source_id)\n"
        "    _set(self, 'media_type', media_type)\n    _set(self, 'title', title"
        ")\n    _set(self, 'filename', filename)\n    _set(self, 'type', type)\n  "
        "  _set(self, 'provider_metadata', provider_metadata)\n    _set(self, 'c"
        "reated_at', created_at)\n    _set(self, 'extra', extra)\n    EDITS.count"
        " += 1\n"
    ): _init_12.__code__,
    (
        "def __init__(self, *, state, tool_call_id, tool_name, args, result=_d_"
        "result, is_error=_d_is_error, error_text=_d_error_text, raw_input=_d_r"
        "aw_input, approval=_d_approval, step=_d_step, extra=_d_extra):\n    _se"
        "t(self, 'state', state)\n    _set(self, 'tool_call_id', tool_call_id)\n "
        "   _set(self, 'tool_name', tool_name)\n    _set(self, 'args', args)\n   "
        " _set(self, 'result', result)\n    _set(self, 'is_error', is_error)\n   "
        " _set(self, 'error_text', error_text)\n    _set(self, 'raw_input', raw_"
        "input)\n    _set(self, 'approval', approval)\n    _set(self, 'step', ste"
        "p)\n    _set(self, 'extra', extra)\n    EDITS.count += 1\n"
    ): _init_13.__code__,
    (
        "def __init__(self, *, step_number, step, checkpoint, model_checkpoint="
        "_d_model_checkpoint, steps_before, retries=_d_retries, builder=FACTORY"
        ", tools=FACTORY, prompt=FACTORY, raw=_d_raw, cached=_d_cached, stream="
        "_d_stream, read=_d_read, guard=_d_guard, request=FACTORY, warnings=FAC"
        "TORY, finish=_d_finish, structured=_d_structured, objects=_d_objects, "
        "result=_d_result, outcome=_d_outcome, edits=_d_edits, verdict=_d_verdi"
        "ct, released=_d_released):\n    self.step_number = step_number\n    self"
        ".step = step\n    self.checkpoint = checkpoint\n    self.model_checkpoin"
        "t = model_checkpoint\n    self.steps_before = steps_before\n    self.ret"
        "ries = retries\n    self.builder = _f_builder() if builder is FACTORY e"
        "lse builder\n    self.tools = _f_tools() if tools is FACTORY else tools"
        "\n    self.prompt = _f_prompt() if prompt is FACTORY else prompt\n    se"
        "lf.raw = raw\n    self.cached = cached\n    self.stream = stream\n    sel"
        "f.read = read\n    self.guard = guard\n    self.request = _f_request() i"
        "f request is FACTORY else request\n    self.warnings = _f_warnings() if"
        " warnings is FACTORY else warnings\n    self.finish = finish\n    self.s"
        "tructured = structured\n    self.objects = objects\n    self.result = re"
        "sult\n    self.outcome = outcome\n    self.edits = edits\n    self.verdic"
        "t = verdict\n    self.released = released\n"
    ): _init_14.__code__,
    (
        "def __init__(self, *, stream, request=FACTORY, response=FACTORY, warni"
        "ngs=FACTORY):\n    self.stream = stream\n    self.request = _f_request()"
        " if request is FACTORY else request\n    self.response = _f_response() "
        "if response is FACTORY else response\n    self.warnings = _f_warnings()"
        " if warnings is FACTORY else warnings\n"
    ): _init_15.__code__,
    (
        "def __init__(self, *, text, type=_d_type, provider_metadata=_d_provide"
        "r_metadata, created_at=_d_created_at, extra=_d_extra):\n    _set(self, "
        "'text', text)\n    _set(self, 'type', type)\n    _set(self, 'provider_me"
        "tadata', provider_metadata)\n    _set(self, 'created_at', created_at)\n "
        "   _set(self, 'extra', extra)\n    EDITS.count += 1\n"
    ): _init_16.__code__,
    (
        "def __init__(self, *, tool_invocation, type=_d_type, provider_executed"
        "=_d_provider_executed, title=_d_title, preliminary=_d_preliminary, pro"
        "vider_metadata=_d_provider_metadata, created_at=_d_created_at, extra=_"
        "d_extra):\n    _set(self, 'tool_invocation', tool_invocation)\n    _set("
        "self, 'type', type)\n    _set(self, 'provider_executed', provider_execu"
        "ted)\n    _set(self, 'title', title)\n    _set(self, 'preliminary', prel"
        "iminary)\n    _set(self, 'provider_metadata', provider_metadata)\n    _s"
        "et(self, 'created_at', created_at)\n    _set(self, 'extra', extra)\n    "
        "EDITS.count += 1\n"
    ): _init_17.__code__,
    (
        "def __init__(self, *, type, data, id=_d_id, provider_metadata=_d_provi"
        "der_metadata, created_at=_d_created_at, extra=_d_extra):\n    _set(self"
        ", 'type', type)\n    _set(self, 'data', data)\n    _set(self, 'id', id)\n"
        "    _set(self, 'provider_metadata', provider_metadata)\n    _set(self, "
        "'created_at', created_at)\n    _set(self, 'extra', extra)\n    EDITS.cou"
        "nt += 1\n"
    ): _init_18.__code__,
    (
        "def __init__(self, approved, reason=_d_reason):\n    _set(self, 'approv"
        "ed', approved)\n    _set(self, 'reason', reason)\n"
    ): _init_19.__code__,
    (
        "def __init__(self, content, provider_options=_d_provider_options, role"
        "=_d_role):\n    self.content = content\n    self.provider_options = prov"
        "ider_options\n    self.role = role\n"
    ): _init_20.__code__,
    (
        "def __init__(self, description=_d_description, params=FACTORY):\n    _s"
        "et(self, 'description', description)\n    _set(self, 'params', _f_param"
        "s() if params is FACTORY else params)\n"
    ): _init_21.__code__,
    ("def __init__(self, error):\n    _set(self, 'error', error)\n"): _init_22.__code__,
    (
        "def __init__(self, ids, part_counts):\n    _set(self, 'ids', ids)\n    _"
        "set(self, 'part_counts', part_counts)\n"
    ): _init_23.__code__,
    (
        "def __init__(self, input_tokens=_d_input_tokens, output_tokens=_d_outp"
        "ut_tokens, total_tokens=_d_total_tokens, reasoning_tokens=_d_reasoning"
        "_tokens, cached_input_tokens=_d_cached_input_tokens):\n    self.input_t"
        "okens = input_tokens\n    self.output_tokens = output_tokens\n    self.t"
        "otal_tokens = total_tokens\n    self.reasoning_tokens = reasoning_token"
        "s\n    self.cached_input_tokens = cached_input_tokens\n"
    ): _init_24.__code__,
    (
        "def __init__(self, kind, ids=_d_ids, source=_d_source, tag=_d_tag, tex"
        "t=_d_text):\n    _set(self, 'kind', kind)\n    _set(self, 'ids', ids)\n  "
        "  _set(self, 'source', source)\n    _set(self, 'tag', tag)\n    _set(sel"
        "f, 'text', text)\n"
    ): _init_25.__code__,
    (
        "def __init__(self, model, tools, tool_choice, active_tools, provider_o"
        "ptions, model_settings, structured_output, system=_d_system):\n    self"
        ".model = model\n    self.tools = tools\n    self.tool_choice = tool_choi"
        "ce\n    self.active_tools = active_tools\n    self.provider_options = pr"
        "ovider_options\n    self.model_settings = model_settings\n    self.struc"
        "tured_output = structured_output\n    self.system = system\n"
    ): _init_26.__code__,
    ("def __init__(self, name):\n    _set(self, 'name', name)\n"): _init_27.__code__,
    (
        "def __init__(self, name, description, input_schema, function, args_mod"
        "el=_d_args_model, pass_model=_d_pass_model, context_parameter=_d_conte"
        "xt_parameter, is_async=_d_is_async, requires_approval=_d_requires_appr"
        "oval):\n    self.name = name\n    self.description = description\n    sel"
        "f.input_schema = input_schema\n    self.function = function\n    self.ar"
        "gs_model = args_model\n    self.pass_model = pass_model\n    self.contex"
        "t_parameter = context_parameter\n    self.is_async = is_async\n    self."
        "requires_approval = requires_approval\n"
    ): _init_28.__code__,
    (
        "def __init__(self, outcome, data_chunks, error=_d_error, tripwire=_d_t"
        "ripwire):\n    _set(self, 'outcome', outcome)\n    _set(self, 'data_chun"
        "ks', data_chunks)\n    _set(self, 'error', error)\n    _set(self, 'tripw"
        "ire', tripwire)\n"
    ): _init_29.__code__,
    ("def __init__(self, payload):\n    _set(self, 'payload', payload)\n"): _init_30.__code__,
    (
        "def __init__(self, processor_id, message, detail=_d_detail, retry=_d_r"
        "etry):\n    _set(self, 'processor_id', processor_id)\n    _set(self, 'me"
        "ssage', message)\n    _set(self, 'detail', detail)\n    _set(self, 'retr"
        "y', retry)\n"
    ): _init_31.__code__,
    (
        "def __init__(self, reason, processor_id=_d_processor_id, metadata=_d_m"
        "etadata, api_error=_d_api_error):\n    _set(self, 'reason', reason)\n   "
        " _set(self, 'processor_id', processor_id)\n    _set(self, 'metadata', m"
        "etadata)\n    _set(self, 'api_error', api_error)\n"
    ): _init_32.__code__,
    (
        "def __init__(self, run_id, text=_d_text, finish_reason=_d_finish_reaso"
        "n, tripwire=_d_tripwire, steps=FACTORY, usage=FACTORY, object=_d_objec"
        "t, messages=FACTORY, error=_d_error, response_message_id=_d_response_m"
        "essage_id):\n    self.run_id = run_id\n    self.text = text\n    self.fin"
        "ish_reason = finish_reason\n    self.tripwire = tripwire\n    self.steps"
        " = _f_steps() if steps is FACTORY else steps\n    self.usage = _f_usage"
        "() if usage is FACTORY else usage\n    self.object = object\n    self.me"
        "ssages = _f_messages() if messages is FACTORY else messages\n    self.e"
        "rror = error\n    self.response_message_id = response_message_id\n"
    ): _init_33.__code__,
    (
        "def __init__(self, run_id, tool_call_id, tool_name, args, resource_id="
        "_d_resource_id):\n    _set(self, 'run_id', run_id)\n    _set(self, 'tool"
        "_call_id', tool_call_id)\n    _set(self, 'tool_name', tool_name)\n    _s"
        "et(self, 'args', args)\n    _set(self, 'resource_id', resource_id)\n"
    ): _init_34.__code__,
    (
        "def __init__(self, schema, model=_d_model, name=_d_name):\n    _set(sel"
        "f, 'schema', schema)\n    _set(self, 'model', model)\n    _set(self, 'na"
        "me', name)\n"
    ): _init_35.__code__,
    (
        "def __init__(self, step_number, text=_d_text, reasoning=_d_reasoning, "
        "tool_calls=FACTORY, tool_results=FACTORY, sources=FACTORY, files=FACTO"
        "RY, finish_reason=_d_finish_reason, usage=FACTORY, warnings=FACTORY, r"
        "equest=FACTORY, response=FACTORY, provider_metadata=_d_provider_metada"
        "ta, model_id=_d_model_id):\n    self.step_number = step_number\n    self"
        ".text = text\n    self.reasoning = reasoning\n    self.tool_calls = _f_t"
        "ool_calls() if tool_calls is FACTORY else tool_calls\n    self.tool_res"
        "ults = _f_tool_results() if tool_results is FACTORY else tool_results\n"
        "    self.sources = _f_sources() if sources is FACTORY else sources\n   "
        " self.files = _f_files() if files is FACTORY else files\n    self.finis"
        "h_reason = finish_reason\n    self.usage = _f_usage() if usage is FACTO"
        "RY else usage\n    self.warnings = _f_warnings() if warnings is FACTORY"
        " else warnings\n    self.request = _f_request() if request is FACTORY e"
        "lse request\n    self.response = _f_response() if response is FACTORY e"
        "lse response\n    self.provider_metadata = provider_metadata\n    self.m"
        "odel_id = model_id\n"
    ): _init_36.__code__,
    (
        "def __init__(self, text, reason=_d_reason, processor_id=_d_processor_i"
        "d):\n    _set(self, 'text', text)\n    _set(self, 'reason', reason)\n    "
        "_set(self, 'processor_id', processor_id)\n"
    ): _init_37.__code__,
    (
        "def __init__(self, tool_call_id, tool_name, args, provider_executed=_d"
        "_provider_executed):\n    self.tool_call_id = tool_call_id\n    self.too"
        "l_name = tool_name\n    self.args = args\n    self.provider_executed = p"
        "rovider_executed\n"
    ): _init_38.__code__,
    (
        "def __init__(self, tool_call_id, tool_name, args, result=_d_result, er"
        "ror=_d_error, provider_executed=_d_provider_executed):\n    self.tool_c"
        "all_id = tool_call_id\n    self.tool_name = tool_name\n    self.args = a"
        "rgs\n    self.result = result\n    self.error = error\n    self.provider_"
        "executed = provider_executed\n"
    ): _init_39.__code__,
    (
        "def __init__(self, tool_call_id, tool_name, result, error_text, path):"
        "\n    self.tool_call_id = tool_call_id\n    self.tool_name = tool_name\n "
        "   self.result = result\n    self.error_text = error_text\n    self.path"
        " = path\n"
    ): _init_40.__code__,
    (
        "def __init__(self, tool_call_id, tool_name, writer, request_context, a"
        "bort_signal=_d_abort_signal, messages=FACTORY, run_id=_d_run_id):\n    "
        "self.tool_call_id = tool_call_id\n    self.tool_name = tool_name\n    se"
        "lf.writer = writer\n    self.request_context = request_context\n    self"
        ".abort_signal = abort_signal\n    self.messages = _f_messages() if mess"
        "ages is FACTORY else messages\n    self.run_id = run_id\n"
    ): _init_41.__code__,
    (
        "def __init__(self, type, raw):\n    _set(self, 'type', type)\n    _set(s"
        "elf, 'raw', raw)\n    EDITS.count += 1\n"
    ): _init_42.__code__,
}
