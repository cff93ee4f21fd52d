"""graphjit.numpy plays mindspore.numpy (imported as `mnp`): numpy's names over graphjit
tensors, built on graphjit.ops so that they run eagerly and in graphs, differentiate and
export alike. Python data becomes int32/float32 tensors and mnp.ones/zeros/eye default to
float32, as in MindSpore. A name MindSpore has and graphjit does not raises an
AttributeError that says so."""
from ..ir.dtypes import (bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
                         float16, float32, float64)
from .creation import *        # noqa: F401,F403
from .array_ops import *       # noqa: F401,F403
from .math_ops import *        # noqa: F401,F403
from .more_ops import *        # noqa: F401,F403
from .math_more import *       # noqa: F401,F403
from .array_more import *      # noqa: F401,F403
from .stats_more import *      # noqa: F401,F403
from . import creation as _creation, array_ops as _array_ops, math_ops as _math_ops
from . import more_ops as _more_ops, math_more as _math_more, array_more as _array_more
from . import stats_more as _stats_more

int_ = int32            # mindspore/numpy/dtypes.py: Python's int and float are 32-bit
float_ = float32
uint = uint32           # likewise the unsigned integer of Python's width
inf = PINF = float("inf")
NINF = float("-inf")
nan = float("nan")
pi = 3.141592653589793
e = 2.718281828459045
euler_gamma = 0.5772156649015329
newaxis = None
dtype_map = {"int": int_, "int8": int8, "int16": int16, "int32": int32, "int64": int64,
             "uint8": uint8, "float": float_, "float16": float16, "float32": float32,
             "float64": float64, "bool": bool_}

__all__ = (["bool_", "int8", "int16", "int32", "int64", "uint8", "float16", "float32",
            "float64", "int_", "float_", "inf", "PINF", "NINF", "nan", "pi", "e",
            "euler_gamma", "newaxis", "dtype_map", "uint", "uint16", "uint32", "uint64"]
           + _creation.__all__ + _array_ops.__all__ + _math_ops.__all__
           + _more_ops.__all__ + _math_more.__all__ + _array_more.__all__
           + _stats_more.__all__)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError(
        f"mindspore.numpy.{name} is not provided by graphjit (graphjit.numpy has "
        f"{len(__all__)} of mindspore.numpy's names; see graphjit.numpy.__all__)")
