"""Compiling, on top of the layers it wires together: the entry points (api.py: jit,
jit_class, explain), the compile cache (cache.py), the explain report (explain.py) and
compiled models (compiled_model.py: compile, import_model). The front-end builds a
graph, the backend plans it; nothing below imports this package: nn.Cell reaches it
through context.compiler, installed here at import."""
from .. import context as _context
from .api import call_compiled as _call_compiled
from .cache import cache_of as _cache_of
from .grad import call_grad as _call_grad

_context.install_compiler(_call_compiled, _cache_of)
_context.compiler.call_grad = _call_grad
