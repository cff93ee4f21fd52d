"""MindSpore's `mindspore.common.initializer`: `initializer(init, shape, dtype)` and the
initializer classes (Normal, TruncatedNormal, Uniform, HeUniform, HeNormal,
XavierUniform, XavierNormal, Constant, Zero, One)."""
from ..initializer import *  # noqa: F401,F403
from ..initializer import __all__  # noqa: F401
