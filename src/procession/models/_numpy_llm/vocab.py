"""The tokenizer and chat template of a GGUF file, from its metadata alone.

A ``gpt2``-style vocabulary (``tokenizer.ggml.tokens`` + ``tokenizer.ggml.merges``) becomes a
byte-level BPE (:mod:`procession.models._numpy_llm.bpe`), split first into single digits as
llama.cpp's ``smollm``/``starcoder`` pre-tokenizers do; control tokens (``<|im_start|>``,
...) are special tokens, matched in prompt text. The chat template
(``tokenizer.chat_template``) renders with jinja2 in a sandbox, as llama-cpp-python's
``Jinja2ChatFormatter`` does it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Any

import numpy as np

from procession.errors import ConfigurationError
from procession.models._numpy_llm.bpe import BytePairEncoder, byte_alphabet

__all__ = ["Vocab", "chat_renderer"]

_CONTROL, _USER_DEFINED = 3, 4
# Texts llama.cpp treats as end of generation when the vocabulary has them (end of turn /
# text, and the fill-in-the-middle pad, repository and file separators).
_END_TEXTS = frozenset(
    {
        "<|endoftext|>", "<|im_end|>", "<|eot_id|>", "<|eom_id|>", "<|end|>", "<end_of_turn>",
        "<|end_of_text|>", "<EOT>", "<|return|>", "<|call|>", "<|fim_pad|>", "<fim-pad>",
        "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>", "<|file_sep|>", "<fim-sep>",
    }
)  # fmt: skip
_DIGIT_SPLIT = frozenset({"smollm", "starcoder", "refact", "command-r", "codeshell"})


def _byte_level(token: str, to_latin1: dict[int, int]) -> bytes:
    """A byte-level token's bytes (a character outside the alphabet reads as a space)."""
    try:
        return token.translate(to_latin1).encode("latin-1")
    except UnicodeEncodeError:
        return bytes(to_latin1.get(ord(c), 32) for c in token)


class Vocab:
    """A GGUF file's tokenizer.

    Attributes:
        pieces: Each token's bytes as generated text (empty for control tokens).
        texts: Each token's text as a grammar sees it (control tokens spelled out), ``None``
            where the bytes are not valid UTF-8 on their own.
        ends: The end-of-generation tokens.
    """

    __slots__ = ("_encoder", "bos", "ends", "eos", "pieces", "texts")

    def __init__(self, metadata: dict[str, Any]) -> None:
        model = metadata.get("tokenizer.ggml.model")
        if model != "gpt2":
            raise ConfigurationError(
                f"local model: the numpy runtime reads gpt2-style (byte-level BPE) tokenizers; "
                f"this file's is {model!r} (install llama-cpp-python to run it)"
            )
        tokens: list[str] = metadata["tokenizer.ggml.tokens"]
        kinds = np.asarray(metadata.get("tokenizer.ggml.token_type", np.ones(len(tokens))))
        merges: list[str] = metadata.get("tokenizer.ggml.merges", [])
        specials = [t for i, t in enumerate(tokens) if kinds[i] in (_CONTROL, _USER_DEFINED)]
        split = str(metadata.get("tokenizer.ggml.pre")) in _DIGIT_SPLIT
        self._encoder = BytePairEncoder(tokens, merges, specials, split_digits=split)
        self.eos = int(metadata.get("tokenizer.ggml.eos_token_id", -1))
        self.bos = int(metadata.get("tokenizer.ggml.bos_token_id", -1))
        to_latin1 = {ord(c): b for b, c in byte_alphabet().items()}  # then bytes as latin-1
        self.pieces: list[bytes] = []
        self.texts: list[str | None] = []
        for token, kind in zip(tokens, kinds, strict=True):
            special = kind in (_CONTROL, _USER_DEFINED)
            raw = token.encode() if special else _byte_level(token, to_latin1)
            self.pieces.append(b"" if kind == _CONTROL else raw)
            try:
                self.texts.append(raw.decode("utf-8"))
            except UnicodeDecodeError:
                self.texts.append(None)
        ends = {self.eos} | {int(metadata.get(f"tokenizer.ggml.{k}_token_id", -1)) for k in
                             ("eot", "eom")}  # fmt: skip
        ends |= {i for i, t in enumerate(tokens) if kinds[i] == _CONTROL and t in _END_TEXTS}
        self.ends = frozenset(e for e in ends if e >= 0)

    def encode(self, text: str) -> list[int]:
        """The tokens of ``text``, with special tokens' spellings matched (no BOS added)."""
        return self._encoder.encode(text)

    def text(self, token: int) -> str:
        """The token's text as generated (empty for control tokens; bytes that are not valid
        UTF-8 on their own are replaced)."""
        return self.pieces[token].decode("utf-8", "replace")


def _tojson(
    value: Any,
    ensure_ascii: bool = False,
    indent: int | None = None,
    separators: tuple[str, str] | None = None,
    sort_keys: bool = False,
) -> str:
    return json.dumps(
        value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys
    )


def _raise(message: str) -> None:
    raise ValueError(message)


def chat_renderer(template: str, vocab: Vocab) -> Callable[[list[dict[str, str]]], str]:
    """A function rendering chat messages with ``template`` (jinja2, sandboxed; the variables
    Hugging Face templates use: ``messages``, ``bos_token``, ``eos_token``,
    ``add_generation_prompt``, ``raise_exception``, ``strftime_now``)."""
    import jinja2.ext
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    env = ImmutableSandboxedEnvironment(
        loader=jinja2.BaseLoader(),
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=[jinja2.ext.loopcontrols],
    )
    env.filters["tojson"] = _tojson
    compiled = env.from_string(template)
    bos = (vocab.texts[vocab.bos] or "") if vocab.bos >= 0 else ""
    eos = (vocab.texts[vocab.eos] or "") if vocab.eos >= 0 else ""

    def render(messages: list[dict[str, str]]) -> str:
        return compiled.render(
            messages=messages,
            bos_token=bos,
            eos_token=eos,
            add_generation_prompt=True,
            raise_exception=_raise,
            strftime_now=lambda f: datetime.now().strftime(f),
        )

    return render
