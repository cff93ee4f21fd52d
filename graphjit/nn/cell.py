"""MindSpore's `mindspore.nn.cell`: Cell, the base of every layer, loss, optimizer and
wrapper of graphjit.nn."""
from __future__ import annotations

import weakref
from collections import OrderedDict

from .. import ops
from ..autodiff import tape as _tape
from ..ops.function.grad.grad_func import record_forward as _record_forward
from ..context import _context, compiler as _compiler, GRAPH_MODE
from ..common.parameter import Parameter, ParameterTuple
from ..common.tensor import Tensor, TensorLike
from ..ir import dtypes as dt
from ..ir.errors import GraphJitError
from ..tracebacks import chain_around as _chain_around, user_facing as _user_facing
from .._input_checks import _check_of as _layer_check, _BY_TYPE as _CHECK_OF
from ..common import cell_hooks as _hooks
from ..common import cell_bprop as _bprop
from ..ops._dispatch import apply as _apply
from ..common.cell_compat import CellCompat

__all__ = ["Cell", "is_registered"]

_DEFAULT_NAME = "Parameter"   # MindSpore's name of a Parameter created without one
# every Parameter some Cell registers, by id (see is_registered)
_REGISTERED = weakref.WeakValueDictionary()


def is_registered(p) -> bool:
    """Whether some Cell registers Parameter p (so that trainable_params, checkpoints and
    optimizers see it)."""
    return _REGISTERED.get(id(p)) is p


def _is_tensor(x) -> bool:
    return isinstance(x, TensorLike)


def _positional(cell, args, kwargs):
    """The construct's arguments as a positional list (bprop takes them so)."""
    if not kwargs:
        return list(args)
    import inspect
    bound = inspect.signature(cell.construct).bind(*args, **kwargs)
    bound.apply_defaults()
    return list(bound.args)



def cast_floats(value, dtype):
    """value with every floating tensor (in tuples and lists too) cast to dtype: the cast
    of mixed precision (to_float's inputs, the amp levels' outputs)."""
    if isinstance(value, TensorLike):
        return ops.cast(value, dtype) if value.dtype.is_floating and \
            value.dtype is not dtype else value
    if isinstance(value, (tuple, list)):
        return type(value)(cast_floats(v, dtype) for v in value)
    return value

class Cell(CellCompat):
    """Base class of models. Subclass it, set attributes in `__init__`, define
    `construct(self, ...)`. Calling the Cell runs `construct` in the current mode:
    compiled to a graph (GRAPH_MODE, the default) or eagerly (PYNATIVE_MODE)."""

    _force_jit = False
    requires_grad = False      # set_grad(): a gradient of this Cell follows its forward

    def __init__(self, auto_prefix=True, flags=None):
        object.__setattr__(self, "_cells", OrderedDict())
        # the registered Parameters, by key: the attribute name, or the Parameter's own
        # name for the items of a ParameterTuple (MindSpore's Cell._params)
        object.__setattr__(self, "_params", OrderedDict())
        object.__setattr__(self, "_auto_prefix", bool(auto_prefix))
        object.__setattr__(self, "_compiled", None)
        object.__setattr__(self, "_input_specs", None)
        object.__setattr__(self, "training", False)
        if flags:
            self.add_flags(**flags)

    def __setattr__(self, name, value):
        """As MindSpore's Cell.__setattr__: a Parameter is registered under the attribute
        name (and named after it if it has no name), the items of a ParameterTuple under
        their own names; a sub-Cell set on a Cell with auto_prefix renames its
        Parameters `name.<path>` (update_parameters_name)."""
        cells = self.__dict__.get("_cells")
        if cells is None:
            if isinstance(value, (Cell, Parameter, ParameterTuple)):
                raise AttributeError(f"assign '{name}' after super().__init__() in "
                                     f"{type(self).__name__}.__init__")
            object.__setattr__(self, name, value)
            return
        params = self._params
        if isinstance(value, Parameter):
            cells.pop(name, None)
            self.insert_param_to_cell(name, value)
        elif isinstance(value, ParameterTuple):
            self._register_tuple(name, value)
        elif isinstance(value, Cell):
            params.pop(name, None)
            if self._auto_prefix:
                value.update_parameters_name(name + ".")
            cells[name] = value
        elif name in cells:
            del cells[name]
        elif name in params:
            if isinstance(value, Tensor) and params[name] is not None:
                # a Tensor given to a Parameter attribute updates the Parameter
                # (MindSpore's set_data), as `self.p = v` in a compiled construct does
                ops.assign(params[name], value)
                return
            if value is not None:
                raise TypeError(f"Parameter '{name}' already exists in {type(self).__name__}: "
                                f"cannot assign a {type(value).__name__} to it")
            params[name] = None
        object.__setattr__(self, name, value)

    def insert_param_to_cell(self, param_name, param, check_name_contain_dot=True):
        """Register `param` (a Parameter or None) under `param_name`; a Parameter without
        a name takes it. MindSpore's insert_param_to_cell."""
        if not param_name or not isinstance(param_name, str):
            raise KeyError(f"insert_param_to_cell: the name must be a non-empty str, got "
                           f"{param_name!r}")
        if check_name_contain_dot and "." in param_name:
            raise KeyError(f"insert_param_to_cell: the name {param_name!r} contains '.'")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"insert_param_to_cell: the param must be a Parameter or None, got "
                            f"{type(param).__name__}")
        if isinstance(param, Parameter) and param.name in (None, _DEFAULT_NAME):
            param.name = param_name
        self._params[param_name] = param
        if param is not None:
            _REGISTERED[id(param)] = param
        if check_name_contain_dot:
            object.__setattr__(self, param_name, param)

    def _register_tuple(self, name, value):
        seen, names = set(), set()
        for item in value:
            if id(item) in seen:          # one Parameter twice: registered once
                continue
            seen.add(id(item))
            if item.name in (None, _DEFAULT_NAME):
                item.name = f"{_DEFAULT_NAME}${len(self._params) + 1}"
            if item.name in names:
                raise ValueError(f"the ParameterTuple '{name}' of {type(self).__name__} holds "
                                 f"two Parameters named '{item.name}': give each a unique "
                                 f"name")
            names.add(item.name)
            self.insert_param_to_cell(item.name, item, check_name_contain_dot=False)
        object.__setattr__(self, name, value)

    def update_parameters_name(self, prefix="", recurse=True):
        """Name every Parameter `prefix` + its path in this Cell (MindSpore's
        update_parameters_name, called when a Cell is set on one with auto_prefix)."""
        for path, p in self.parameters_and_names(expand=recurse):
            p.name = prefix + path

    def __delattr__(self, name):
        self._params.pop(name, None)
        self._cells.pop(name, None)
        object.__delattr__(self, name)

    def __deepcopy__(self, memo):
        """A copy with its own Parameters (same values) and no compiled graphs (as
        TransformerEncoder makes its layers)."""
        import copy
        new = object.__new__(type(self))
        memo[id(self)] = new
        for k, v in self.__dict__.items():
            if k in ("_graphjit_caches", "_graphjit_forward"):   # compiled graphs (with
                continue                                            # locks), a recorded run
            object.__setattr__(new, k, None if k == "_compiled" else copy.deepcopy(v, memo))
        return new

    def construct(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define construct(self, ...)")

    def __call__(self, *args, **kwargs):
        if "_names_checked" not in self.__dict__:   # MindSpore's _self_check, once a Cell
            object.__setattr__(self, "_names_checked", True)
            self.check_names_and_refresh_name()
        hooks = self.__dict__.get("_graphjit_hooks")
        if hooks:       # forward hooks run around the call, in either mode (common.cell_hooks)
            if hooks.bypass:        # the call between the hooks (hooks.call_hooked)
                hooks.bypass = False
            else:
                try:
                    return _hooks.call_hooked(self, hooks, args, kwargs)
                except Exception as e:   # raised from here: the one graphjit frame
                    raise _user_facing(e)
        cls = type(self)
        if cls._force_jit or _context["mode"] == GRAPH_MODE:
            try:
                return _compiler.call_cell(self, args, kwargs)
            except Exception as e:   # raised from here: the one graphjit frame users see
                raise _user_facing(e)
        if _tape.current() is not None and _bprop.has_bprop(self):   # its own gradient
            return _bprop.wrap_outputs(self, _positional(self, args, kwargs),
                                       self.construct(*args, **kwargs), _apply, _is_tensor)
        check = _CHECK_OF.get(cls, _layer_check)    # _layer_check(cls), from its table
        if check is _layer_check:
            check = _layer_check(cls)
        d = self.__dict__
        if check is None and not d.get("requires_grad") and \
                d.get("_mixed_precision") is None:          # a user's Cell, eagerly
            return self.construct(*args, **kwargs)
        if check is not None:       # a built-in layer: its input, in its own words
            check(self, args, kwargs)
        if d.get("_mixed_precision") is not None:
            return self._run_mixed_precision(args, kwargs)
        if d.get("requires_grad") and _tape.current() is None and \
                not d.get("_graphjit_hooks"):   # a recorded forward would skip the hooks
            return _record_forward(self, args, kwargs)
        if check is not None:
            try:
                return self.construct(*args, **kwargs)
            except GraphJitError as e:     # an op's error below: the chain of calls
                if e.loc is None:
                    e.loc = _chain_around(e.__traceback__)
                raise
        return self.construct(*args, **kwargs)

    # -- mixed precision (to_float) ---------------------------------------------------------
    def to_float(self, dst_type):
        """Run this Cell and its sub-Cells in dst_type (float16, float32): their floating
        inputs and floating Parameters are cast to it where construct reads them, in both
        modes, as MindSpore's auto mixed precision does. Returns self."""
        if dst_type not in (dt.float16, dt.float32):
            raise ValueError(f"For 'to_float', the argument 'dst_type' should be "
                             f"mstype.float32 or mstype.float16, but got type: "
                             f"{type(dst_type)} and value is {dst_type}.")
        self.add_flags_recursive(fp16=dst_type is dt.float16, fp32=dst_type is dt.float32)
        for _, cell in self.cells_and_names():
            object.__setattr__(cell, "_mixed_precision", dst_type)
        return self

    def _cast_inputs(self, args, kwargs):
        """args and kwargs with every floating tensor (in tuples and lists too) cast to
        the to_float type; the frontend calls it for construct's arguments."""
        dst = self.__dict__.get("_mixed_precision")
        if dst is None:
            return args, kwargs
        return cast_floats(args, dst), {k: cast_floats(v, dst) for k, v in kwargs.items()}

    def _cast_parameter(self, value):
        """A floating trainable Parameter (or a tuple of them, as a ParameterTuple) read
        in a to_float Cell's construct, cast to its type."""
        dst = self.__dict__.get("_mixed_precision")
        if dst is None:
            return value
        if isinstance(value, (tuple, list)) and value and all(
                isinstance(p, Parameter) for p in value):
            return tuple(self._cast_parameter(p) for p in value)
        if not isinstance(value, Parameter) or not value.dtype.is_floating \
                or value.dtype is dst or not value.requires_grad:
            # state that is not trained (BatchNorm's moving statistics) stays the
            # Parameter: ops update it in place, as MindSpore's casts leave refs alone
            return value
        return ops.cast(value, dst)

    def _run_mixed_precision(self, args, kwargs):
        """construct over inputs and Parameters cast to the to_float type (the casts are
        made inside the run, so a tape recording it sees them); a set_grad() Cell's run
        is recorded as the unmixed one is."""
        def construct_in_type(*a, **k):
            a, k = self._cast_inputs(a, k)
            own = {n: v for n, v in self.__dict__.items()
                   if isinstance(v, (Parameter, tuple, list)) and
                   self._cast_parameter(v) is not v}
            for n, v in own.items():    # construct reads the cast values, then the state
                object.__setattr__(self, n, self._cast_parameter(v))
            try:
                return type(self).construct(self, *a, **k)
            finally:
                for n, v in own.items():
                    object.__setattr__(self, n, v)

        if self.__dict__.get("requires_grad") and _tape.current() is None:
            object.__setattr__(self, "construct", construct_in_type)
            try:
                return _record_forward(self, args, kwargs)
            finally:
                del self.__dict__["construct"]
        return construct_in_type(*args, **kwargs)

    # -- flags and phase -------------------------------------------------------------------
    def add_flags(self, **flags):
        """Set flags on this Cell (MindSpore's compile flags; kept, read by get_flags).
        Returns self."""
        if "_graphjit_flags" not in self.__dict__:
            object.__setattr__(self, "_graphjit_flags", {})
        self.__dict__["_graphjit_flags"].update(flags)
        return self

    def add_flags_recursive(self, **flags):
        """add_flags on this Cell and every sub-Cell. Returns self."""
        for _, cell in self.cells_and_names():
            cell.add_flags(**flags)
        return self

    def get_flags(self):
        return dict(self.__dict__.get("_graphjit_flags", {}))

    @property
    def phase(self):
        """'train' (MindSpore's initial phase, and after set_train(True)), 'predict' after
        set_train(False)."""
        return self.__dict__.get("_phase", "train")

    @phase.setter
    def phase(self, value):
        object.__setattr__(self, "_phase", value)

    @property
    def pipeline_stage(self):
        """MindSpore's pipeline-parallel stage of this Cell (0 unless set). graphjit runs
        a network in one process, so the stage is only kept, checked as MindSpore checks it."""
        return self.__dict__.get("_pipeline_stage", 0)

    @pipeline_stage.setter
    def pipeline_stage(self, value):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"For 'Cell', the property 'pipeline_stage' must be int type, "
                            f"but got type {type(value)}.")
        if value < 0:
            raise ValueError(f"For 'Cell', the property 'pipeline_stage' can not be less "
                             f"than 0, but got {value}")
        object.__setattr__(self, "_pipeline_stage", value)

    # -- MindSpore-compatible helpers -------------------------------------------------------
    # -- forward hooks (common.cell_hooks) -------------------------------------------------------------
    def register_forward_pre_hook(self, hook_fn, with_kwargs=False):
        """Run `hook_fn(cell, args)` (with_kwargs: `hook_fn(cell, args, kwargs)`) before
        construct at every call; it returns None or new args (with_kwargs: a tuple
        (new_args, new_kwargs)). Runs in graph mode too (see graphjit.common.cell_hooks).

        Returns:
            A handle: handle.remove() takes the hook off.

        Raises:
            TypeError: hook_fn is not a Python function.
        """
        return _hooks.register(self, "pre", hook_fn, with_kwargs)

    def register_forward_hook(self, hook_fn, with_kwargs=False):
        """Run `hook_fn(cell, args, output)` (with_kwargs: `hook_fn(cell, args, kwargs,
        output)`) after construct at every call; it returns None or a new output. Runs
        in graph mode too (see graphjit.common.cell_hooks).

        Returns:
            A handle: handle.remove() takes the hook off.

        Raises:
            TypeError: hook_fn is not a Python function.
        """
        return _hooks.register(self, "forward", hook_fn, with_kwargs)

    def register_backward_hook(self, hook_fn):
        """Run `hook_fn(cell, grad_input, grad_output)` when a PYNATIVE gradient goes
        through this Cell: grad_input holds the gradients of its tensor inputs,
        grad_output those of its outputs (tuples of Tensors); it returns None or new
        grad_input. PYNATIVE_MODE only: a graph-mode gradient through the Cell is refused
        when built (see graphjit.common.cell_hooks).

        Returns:
            A handle: handle.remove() takes the hook off.

        Raises:
            TypeError: hook_fn is not a Python function.
        """
        return _hooks.register(self, "backward", hook_fn, False)

    def set_jit_config(self, jit_config):
        """Keep MindSpore compile options (a JitConfig) for this Cell. They change nothing
        in what graphjit compiles or computes (see graphjit.JitConfig); as MindSpore, only
        the first call sets them, a later one warns and is ignored.

        Raises:
            TypeError: jit_config is not a JitConfig.
        """
        from ..common.jit_config import JitConfig
        if not isinstance(jit_config, JitConfig):
            raise TypeError(f"For 'Cell.set_jit_config', the argument 'jit_config' must be a "
                            f"JitConfig, but got {type(jit_config).__name__}.")
        if self.__dict__.get("_jit_config_dict"):
            import warnings
            warnings.warn("For Cell, jit config can only be set once, ignore this setting.",
                          UserWarning, stacklevel=2)
            return
        object.__setattr__(self, "_jit_config_dict", jit_config.jit_config_dict)

    @property
    def jit_config_dict(self):
        """The options set_jit_config kept (an empty dict if none)."""
        return self.__dict__.get("_jit_config_dict") or {}

    def set_inputs(self, *inputs):
        """Describe the inputs (Tensors without data or TensorSpecs); None dims become
        unknown dims for every compilation of this Cell."""
        object.__setattr__(self, "_input_specs", tuple(inputs))
        object.__setattr__(self, "_compiled", None)

    def get_inputs(self):
        return self._input_specs

    def cells(self):
        return list(self._cells.values())

    def name_cells(self):
        return OrderedDict(self._cells)

    def cells_and_names(self, cells=None, name_prefix=""):
        """(path, Cell) for this Cell and its sub-Cells, each once (MindSpore's)."""
        if isinstance(cells, str):          # cells_and_names("prefix")
            cells, name_prefix = None, cells
        seen = cells if cells is not None else set()
        if id(self) in seen:
            return
        seen.add(id(self))
        yield name_prefix, self
        for name, cell in self._cells.items():
            if cell is not None:
                yield from cell.cells_and_names(
                    seen, f"{name_prefix}.{name}" if name_prefix else name)

    def parameters_and_names(self, name_prefix="", expand=True):
        """(path, Parameter) for the registered Parameters of this Cell and, if expand, of
        its sub-Cells: its own first (in the order they were set), each once. The path
        is the attribute path (a ParameterTuple's items by their names); Parameter.name
        is the name checkpoints use (MindSpore's)."""
        seen = set()
        for prefix, cell in (self.cells_and_names(name_prefix=name_prefix) if expand else
                             [(name_prefix, self)]):
            for key, value in cell._params.items():
                if value is not None and id(value) not in seen:
                    seen.add(id(value))
                    yield (f"{prefix}.{key}" if prefix else key), value

    def get_parameters(self, expand=True):
        """The Parameters of this Cell (and of its sub-Cells if expand)."""
        for _, p in self.parameters_and_names(expand=expand):
            yield p

    def trainable_params(self, recurse=True):
        """The Parameters with requires_grad, as a list (MindSpore's weights)."""
        return [p for p in self.get_parameters(expand=recurse) if p.requires_grad]

    def untrainable_params(self, recurse=True):
        return [p for p in self.get_parameters(expand=recurse) if not p.requires_grad]

    def set_train(self, mode=True):
        object.__setattr__(self, "training", mode)
        object.__setattr__(self, "_phase", "train" if mode else "predict")
        for c in self._cells.values():
            c.set_train(mode)
        return self

    def set_grad(self, requires_grad=True):
        """Mark the Cell as one whose gradient is taken after its forward (MindSpore's
        flag): in PYNATIVE mode its forward is then recorded, and a gradient of it on the
        same inputs reuses that forward instead of running it again."""
        object.__setattr__(self, "requires_grad", bool(requires_grad))
        return self

    def insert_child_to_cell(self, child_name, child_cell):
        """Add child_cell as the sub-Cell child_name (as setattr)."""
        if not isinstance(child_name, str) or not child_name or "." in child_name:
            raise KeyError(f"child name must be a non-empty str without '.', got "
                           f"{child_name!r}")
        if hasattr(self, child_name) and child_name not in self._cells:
            raise KeyError(f"{type(self).__name__} already has an attribute {child_name!r}")
        if child_cell is not None and not isinstance(child_cell, Cell):
            raise TypeError(f"child_cell must be a Cell, got {type(child_cell).__name__}")
        setattr(self, child_name, child_cell)

    def parameters_dict(self, recurse=True):
        """OrderedDict Parameter.name -> Parameter (of the sub-Cells too if recurse)."""
        return OrderedDict((p.name, p) for p in self.get_parameters(expand=recurse))

    def check_names(self):
        """Raise ValueError if two Parameters of this Cell share a name."""
        names = set()
        for path, p in self.parameters_and_names():
            if p.name in names:
                raise ValueError(f"the Parameter at '{path}' is named '{p.name}', a name "
                                 f"another Parameter of {type(self).__name__} has: give it "
                                 f"a unique name")
            names.add(p.name)

    def check_names_and_refresh_name(self):
        """If two Parameters share a name (sub-Cells appended to a container after it was
        set on its parent keep names without the parent's prefix), rename every
        Parameter to its path in this Cell, then check_names. MindSpore does this when a
        Cell is first called, in either mode."""
        names = [p.name for p in dict(self.parameters_and_names()).values()]
        if len(set(names)) < len(names):
            self.update_parameters_name()
            self.check_names()

    def apply(self, fn):
        """fn(cell) for every sub-Cell (recursively) and then this Cell; returns self."""
        for c in self._cells.values():
            c.apply(fn)
        fn(self)
        return self

    def compile_cache(self):
        """The compiled graphs of this Cell, one per input signature (see explain)."""
        return _compiler.cell_cache(self)

    def __repr__(self):
        inner = ", ".join(f"{k}={type(v).__name__}" for k, v in self._cells.items())
        return f"{type(self).__name__}<{inner}>"
