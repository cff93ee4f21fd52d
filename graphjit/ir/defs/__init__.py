"""Operator definitions by family; importing this package registers them all."""
from . import elementwise, reduction, shape, creation, nn, effects  # noqa: F401
from . import conv, norm, random, sorting  # noqa: F401,E402
from . import state, optimizers  # noqa: F401,E402
