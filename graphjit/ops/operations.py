"""MindSpore's `mindspore.ops.operations` (often imported as P): the primitive classes."""
from .primitives import *  # noqa: F401,F403
from .misc_ops import Assign, AssignAdd, Depend, DType, Identity, Print, ScalarToTensor, \
    StopGradient, TupleToArray  # noqa: F401
from .misc_ops import MakeTuple, TupleGetItem  # noqa: F401
from .layer_primitives import *  # noqa: F401,F403
from .more_primitives import *  # noqa: F401,F403
from .state_ops import AssignSub, ApplyGradientDescent, ApplyMomentum, ApplyAdagrad, Adam, \
    SGD  # noqa: F401
