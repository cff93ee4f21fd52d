"""MindSpore's `mindspore.common.jit_config`: JitConfig, the compile options a Cell takes
with Cell.set_jit_config (and `jit(..., jit_config=)` accepts).

In MindSpore these are performance and syntax knobs (optimization level, device sink,
syntax level, debug information). graphjit accepts and validates them as MindSpore does,
keeps them (JitConfig.jit_config_dict) and compiles every program the same way whatever
they say: a valid JitConfig changes no value, dtype or shape, and no refusal."""
from __future__ import annotations

import warnings

__all__ = ["JitConfig"]

_JIT_LEVELS = ("", "O0", "O1", "O2")
_EXC_MODES = ("auto", "sink", "no_sink")
_SYNTAX_LEVELS = ("", "STRICT", "COMPATIBLE", "LAX")
_DEBUG_LEVELS = ("RELEASE", "DEBUG")
_INFER_BOOST = ("", "on", "off")


class JitConfig:
    """Compile options (MindSpore 2.10's JitConfig).

    Args:
        jit_level: "" (the framework chooses), "O0" or "O1"; "O2" (deprecated since
            MindSpore 2.9) is accepted with a DeprecationWarning.
        exc_mode: "auto", "sink" or "no_sink".
        jit_syntax_level: "" (use set_context's), "STRICT", "COMPATIBLE" or "LAX".
        debug_level: "RELEASE" or "DEBUG".
        infer_boost: "on" or "off" (deprecated since MindSpore 2.10; "on" warns).
        **kwargs: kept in jit_config_dict as given.

    Raises:
        ValueError: a value outside those lists (as MindSpore).

    None of them changes what graphjit compiles or computes.
    """

    def __init__(self, jit_level="", exc_mode="auto", jit_syntax_level="", debug_level="RELEASE",
                 infer_boost="off", **kwargs):
        for name, value, allowed in (("jit_level", jit_level, _JIT_LEVELS),
                                     ("exc_mode", exc_mode, _EXC_MODES),
                                     ("jit_syntax_level", jit_syntax_level, _SYNTAX_LEVELS),
                                     ("debug_level", debug_level, _DEBUG_LEVELS),
                                     ("infer_boost", infer_boost, _INFER_BOOST)):
            if not isinstance(value, str) or value not in allowed:
                shown = [a for a in allowed if a]
                raise ValueError(f"For 'JitConfig', '{name}' must be one of {shown}"
                                 f"{' or empty' if '' in allowed else ''}, but got {value!r}.")
        if jit_level == "O2":
            warnings.warn("JitConfig: jit_level 'O2' is deprecated (MindSpore 2.9); graphjit "
                          "compiles the same way at every level", DeprecationWarning,
                          stacklevel=2)
        if infer_boost == "on":
            warnings.warn("JitConfig: infer_boost is deprecated (MindSpore 2.10); it changes "
                          "nothing in graphjit", DeprecationWarning, stacklevel=2)
        self.jit_config_dict = dict(kwargs)
        self.jit_config_dict.update(jit_level=jit_level, exc_mode=exc_mode,
                                    jit_syntax_level=jit_syntax_level,
                                    debug_level=debug_level, infer_boost=infer_boost)

    def __repr__(self):
        items = ", ".join(f"{k}={v!r}" for k, v in self.jit_config_dict.items())
        return f"JitConfig({items})"
