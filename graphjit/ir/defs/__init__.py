"""Operator definitions by family; importing this package registers them all, with the
gradient of each op beside its family (`<family>_grad.py`)."""
from . import elementwise, reduction, shape, creation, nn, effects, grad_ops  # noqa: F401
from . import conv, norm, random, sorting  # noqa: F401,E402
from . import state, optimizers, collective  # noqa: F401,E402
from . import elementwise_grad, reduction_grad, shape_grad, nn_grad  # noqa: F401
from . import conv_grad, norm_grad, sorting_grad, state_grad  # noqa: F401
from . import grad_ops_grad  # noqa: F401,E402
