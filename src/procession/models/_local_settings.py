"""What both runtimes of the embedded model share: the sampling settings and the fallback chat
template (ChatML, for a GGUF that carries none). Nothing here imports numpy or llama_cpp."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CHATML", "Sampling"]

CHATML = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{{ message['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


@dataclass(slots=True, frozen=True)
class Sampling:
    """One call's sampling settings (llama-cpp-python's names; ``temp=0`` is greedy)."""

    temp: float = 0.0
    top_p: float = 0.95
    top_k: int = 40
    min_p: float = 0.05
    repeat_penalty: float = 1.0
    presence_penalty: float = 0.0
    frequency_penalty: float = 0.0

    @property
    def penalises(self) -> bool:
        """Whether any repetition penalty is on."""
        return (
            self.repeat_penalty != 1.0
            or self.presence_penalty != 0.0
            or self.frequency_penalty != 0.0
        )
