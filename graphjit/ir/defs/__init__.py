"""Operator definitions by family; importing this package registers them all."""
from . import elementwise, reduction, shape, creation, nn, effects  # noqa: F401
