"""The rest of MindSpore's Cell surface that model-zoo code calls: methods about lazy
initialization, scopes, parallel configuration and recomputation. graphjit's Parameters
always hold data and a network runs in one process, so these keep what they are given
and change no value a network computes; each says what MindSpore does instead."""
from __future__ import annotations

from collections import OrderedDict

from .parameter import ParameterTuple

__all__ = ["CellCompat"]


class CellCompat:
    """Mixed into Cell (see cell.py)."""

    @property
    def cls_name(self):
        """The name of the Cell's class (MindSpore's cls_name)."""
        return type(self).__name__

    @property
    def param_prefix(self):
        """The prefix update_cell_prefix gave this Cell's parameters ('' before)."""
        return self.__dict__.get("_param_prefix", "")

    def init_parameters_data(self, auto_parallel_mode=False):
        """MindSpore initializes Parameters lazily and this replaces each by its
        initialized one; graphjit's Parameters hold their data from the start, so each
        maps to itself. Returns {Parameter: Parameter}."""
        replace = {}
        for _, cell in self.cells_and_names():
            for p in cell._params.values():
                if p is not None:
                    replace[p] = p.init_data()
            for v in cell.__dict__.values():
                if isinstance(v, ParameterTuple):
                    for p in v:
                        replace[p] = p.init_data()
        return replace

    def parameters_broadcast_dict(self, recurse=True):
        """OrderedDict name -> Parameter of the Parameters that are not
        layerwise_parallel; None if there are none (MindSpore's)."""
        out = OrderedDict((p.name, p) for p in self.get_parameters(expand=recurse)
                          if not getattr(p, "layerwise_parallel", False))
        return out or None

    def check_names_and_refresh_name(self):
        """If two Parameters share a name, rename all by their paths (MindSpore's)."""
        names = [p.name for p in self.get_parameters()]
        if len(set(names)) < len(names):
            self.update_parameters_name()
            self.check_names()

    def update_cell_prefix(self):
        """Record on every sub-Cell its path from this one (MindSpore's param_prefix)."""
        for name, cell in self.cells_and_names():
            object.__setattr__(cell, "_param_prefix", name)

    def update_cell_type(self, cell_type):
        """Keep a cell type tag (MindSpore uses it for quantization export)."""
        object.__setattr__(self, "cell_type", cell_type)

    def get_scope(self):
        """The scope generate_scope gave this Cell (None before)."""
        return self.__dict__.get("_scope")

    def generate_scope(self):
        """Give every sub-Cell its scope 'Default/<path>' (MindSpore's, without class
        names)."""
        for name, cell in self.cells_and_names():
            if name:
                object.__setattr__(cell, "_scope", "Default/" + name.replace(".", "/"))

    def recompute(self, **kwargs):
        """MindSpore recomputes this Cell's forward in the backward pass instead of
        storing its activations: a memory trade that changes no value. graphjit keeps
        the mark (get_flags()['recompute'] is True) and computes as before.

        Raises:
            TypeError: a keyword other than mp_comm_recompute and
                parallel_optimizer_comm_recompute, or a value that is not a bool.
        """
        for k, v in kwargs.items():
            if k not in ("mp_comm_recompute", "parallel_optimizer_comm_recompute",
                         "recompute_slice_activation"):
                raise TypeError(f"For 'recompute', the argument '{k}' is not supported")
            if not isinstance(v, bool):
                raise TypeError(f"For 'recompute', the type of '{k}' must be bool, but "
                                f"got {type(v).__name__}")
        for _, cell in self.cells_and_names():
            cell.add_flags(recompute=True)

    def set_boost(self, boost_type):
        """Keep MindSpore's boost setting (a training speed-up on Ascend). Returns self."""
        self.add_flags(boost_type=boost_type)
        return self

    def set_broadcast_flag(self, mode=True):
        """Keep MindSpore's broadcast flag (parallel training). Returns self."""
        self.add_flags(broadcast_flag=mode)
        return self

    def set_data_parallel(self):
        """Keep MindSpore's data-parallel strategy mark. Returns self."""
        self.add_flags(data_parallel=True)
        return self

    def set_comm_fusion(self, fusion_type, recurse=True):
        """Set comm_fusion on this Cell's Parameters (MindSpore fuses their gradient
        all-reduces by it). Returns self."""
        for p in self.get_parameters(expand=recurse):
            p.comm_fusion = fusion_type
        return self

    def shard(self, in_strategy=None, out_strategy=None, parameter_plan=None, device="Ascend",
              level=0):
        """Keep MindSpore's sharding strategy (auto-parallel). Returns self."""
        self.add_flags(shard=(in_strategy, out_strategy))
        return self

    def remove_redundant_parameters(self):
        """MindSpore drops Parameters of other devices in parallel mode: nothing here."""

    def exec_checkpoint_graph(self):
        """MindSpore runs a graph that saves checkpoints on device: nothing here."""

    def place(self, role, rank_id):
        """Keep MindSpore's placement (a distributed role). Returns None."""
        self.add_flags(place=(role, rank_id))
