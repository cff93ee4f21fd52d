"""MindSpore's `mindspore.nn.optim`: Optimizer (optimizer.py) and one module per
optimizer (sgd, momentum, adam, ada_grad, rmsprop, ftrl)."""
from .optimizer import *  # noqa: F401,F403
from .sgd import *  # noqa: F401,F403
from .momentum import *  # noqa: F401,F403
from .adam import *  # noqa: F401,F403
from .ada_grad import *  # noqa: F401,F403
from .rmsprop import *  # noqa: F401,F403
from .ftrl import *  # noqa: F401,F403

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "AdamWeightDecay", "Adagrad", "RMSProp", "FTRL"]
