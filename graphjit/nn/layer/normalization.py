"""MindSpore's `mindspore.nn.layer.normalization`: BatchNorm1d, BatchNorm2d, LayerNorm,
GroupNorm and InstanceNorm1d/2d/3d."""
from __future__ import annotations

from ... import ops
from ...common import initializer as init
from ..._checkparam import _check_format, _positive_int, check_rank
from ...ir.dtypes import float32
from ..cell import Cell
from ...common.parameter import Parameter

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm", "GroupNorm", "InstanceNorm1d",
           "InstanceNorm2d", "InstanceNorm3d"]


# -- normalization -------------------------------------------------------------------------------
class _BatchNorm(Cell):
    """Batch normalization over axis 1. Inference (set_train(False), the default) uses
    the moving statistics; training (set_train()) uses the batch's mean and biased
    variance and updates the moving ones: moving = moving * momentum + batch * (1 -
    momentum), with the batch's unbiased variance (n / (n - 1)) for moving_variance, as
    MindSpore. use_batch_statistics True or False forces one or the other."""

    _ranks = ()

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones",
                 beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics=None, data_format="NCHW", dtype=float32):
        super().__init__()
        layer = type(self).__name__
        _check_format(data_format, layer)
        self.num_features = _positive_int(num_features, "num_features", layer)
        if isinstance(momentum, bool) or not isinstance(momentum, (int, float)) or \
                not 0 <= momentum <= 1:
            raise ValueError(f"{layer}: momentum must be in [0, 1], got {momentum!r}")
        if use_batch_statistics not in (None, True, False):
            raise ValueError(f"{layer}: use_batch_statistics must be None, True or False")
        self.eps, self.momentum = float(eps), float(momentum)
        self.use_batch_statistics = use_batch_statistics
        n = (num_features,)
        # MindSpore's order (get_parameters(), checkpoints): the moving statistics first
        self.moving_mean = Parameter(init.initializer(moving_mean_init, n, dtype), name="mean",
                                     requires_grad=False)
        self.moving_variance = Parameter(init.initializer(moving_var_init, n, dtype),
                                         name="variance", requires_grad=False)
        self.gamma = Parameter(init.initializer(gamma_init, n, dtype), name="gamma",
                               requires_grad=affine)
        self.beta = Parameter(init.initializer(beta_init, n, dtype), name="beta",
                              requires_grad=affine)

    def construct(self, x):
        check_rank(x, self._ranks, type(self).__name__)
        training = self.training if self.use_batch_statistics is None \
            else self.use_batch_statistics
        return ops.batch_norm(x, self.moving_mean, self.moving_variance, self.gamma,
                              self.beta, training, 1.0 - self.momentum, self.eps)


class BatchNorm1d(_BatchNorm):
    """Batch normalization of (N, C) or (N, C, L) over axis 1; see _BatchNorm."""

    _ranks = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalization of (N, C, H, W) over axis 1; see _BatchNorm."""

    _ranks = (4,)


class BatchNorm3d(_BatchNorm):
    """Batch normalization of (N, C, D, H, W) over axis 1; see _BatchNorm."""

    _ranks = (5,)


class LayerNorm(Cell):
    """Normalize over the axes from begin_norm_axis (mean and biased variance), then *
    gamma + beta, both of shape normalized_shape (the input's dims from
    begin_params_axis)."""

    def __init__(self, normalized_shape, begin_norm_axis=-1, begin_params_axis=-1,
                 gamma_init="ones", beta_init="zeros", epsilon=1e-7, dtype=float32):
        super().__init__()
        if not isinstance(normalized_shape, (tuple, list)):
            raise TypeError(f"LayerNorm: normalized_shape must be a tuple or list of ints, got "
                            f"{normalized_shape!r}")
        self.normalized_shape = tuple(normalized_shape)
        self.begin_norm_axis, self.begin_params_axis = begin_norm_axis, begin_params_axis
        self.epsilon = epsilon
        self.gamma = Parameter(init.initializer(gamma_init, self.normalized_shape, dtype),
                               name="gamma")
        self.beta = Parameter(init.initializer(beta_init, self.normalized_shape, dtype),
                              name="beta")
        self.layer_norm = ops.LayerNorm(begin_norm_axis, begin_params_axis, epsilon)

    def construct(self, x):
        y, _, _ = self.layer_norm(x, self.gamma, self.beta)
        return y


class GroupNorm(Cell):
    """Group normalization of (N, C, *): per sample, over each of num_groups groups of
    channels (mean and biased variance), then * gamma + beta (shape (C,))."""

    def __init__(self, num_groups, num_channels, eps=1e-05, affine=True, gamma_init="ones",
                 beta_init="zeros", dtype=float32):
        super().__init__()
        self.num_groups = _positive_int(num_groups, "num_groups", "GroupNorm")
        self.num_channels = _positive_int(num_channels, "num_channels", "GroupNorm")
        if num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_channels {num_channels} must be divisible by "
                             f"num_groups {num_groups}")
        self.eps = float(eps)
        self.affine = bool(affine)
        self.gamma = Parameter(init.initializer(gamma_init, (num_channels,), dtype),
                               name="gamma", requires_grad=self.affine)
        self.beta = Parameter(init.initializer(beta_init, (num_channels,), dtype),
                              name="beta", requires_grad=self.affine)

    def construct(self, x):
        return ops.group_norm(x, self.num_groups, self.gamma, self.beta, self.eps)


class _InstanceNorm(Cell):
    """Instance normalization of (N, C, *): each sample and channel normalized over the
    spatial dims with its own mean and biased variance, in training and inference
    alike, then * gamma + beta. Training (set_train()) also updates moving_mean and
    moving_variance: moving = (1 - momentum) * moving + momentum * the batch's mean of
    the instance statistics (unbiased variances)."""

    _ranks = ()

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, gamma_init="ones",
                 beta_init="zeros", dtype=float32):
        super().__init__()
        layer = type(self).__name__
        self.num_features = _positive_int(num_features, "num_features", layer)
        if isinstance(momentum, bool) or not isinstance(momentum, (int, float)) or \
                not 0 <= momentum <= 1:
            raise ValueError(f"{layer}: momentum must be in [0, 1], got {momentum!r}")
        self.eps, self.momentum, self.affine = float(eps), float(momentum), bool(affine)
        n = (num_features,)
        self.gamma = Parameter(init.initializer(gamma_init, n, dtype), name="gamma",
                               requires_grad=self.affine)
        self.beta = Parameter(init.initializer(beta_init, n, dtype), name="beta",
                              requires_grad=self.affine)
        self.moving_mean = Parameter(init.initializer("zeros", n, dtype), name="mean",
                                     requires_grad=False)
        self.moving_variance = Parameter(init.initializer("ones", n, dtype), name="variance",
                                         requires_grad=False)

    def construct(self, x):
        check_rank(x, self._ranks, type(self).__name__)
        if self.training:
            return ops.instance_norm(x, self.moving_mean, self.moving_variance, self.gamma,
                                     self.beta, True, self.momentum, self.eps)
        return ops.instance_norm(x, None, None, self.gamma, self.beta, True, self.momentum,
                                 self.eps)


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization of (N, C, L); see _InstanceNorm."""

    _ranks = (3,)


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization of (N, C, H, W); see _InstanceNorm."""

    _ranks = (4,)


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization of (N, C, D, H, W); see _InstanceNorm."""

    _ranks = (5,)
