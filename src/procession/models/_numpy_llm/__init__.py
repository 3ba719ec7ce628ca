"""The embedded model's numpy runtime: a Llama-architecture GGUF run with numpy alone.

``weights`` reads and dequantises the GGUF file (with the ``gguf`` package), ``forward`` is the
transformer with its KV cache, ``vocab`` the tokenizer and chat template from the file's
metadata, ``grammar`` the JSON-schema prefix checker that constrains tool calls and structured
output, ``sampling`` greedy decoding and llama.cpp's sampler chain, and ``runtime`` ties them
into the generation loop the local model drives. Nothing here imports ``llama_cpp``.
"""
