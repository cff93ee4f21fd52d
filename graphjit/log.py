"""mindspore.log, the logger module MindSpore scripts import as
`from mindspore import log as logger`: debug/info/warning/error/critical on a Python
logger named "mindspore". As in MindSpore, the level comes from GLOG_v (0 debug, 1 info,
2 warning (the default), 3 error, 4 critical) and get_level() returns it as a string."""
from __future__ import annotations

import logging as _logging
import os as _os
import sys as _sys

__all__ = ["debug", "info", "warning", "error", "critical", "exception", "get_level",
           "get_log_config"]

_GLOG_TO_LEVEL = {"0": _logging.DEBUG, "1": _logging.INFO, "2": _logging.WARNING,
                  "3": _logging.ERROR, "4": _logging.CRITICAL}
_LEVEL_TO_GLOG = {v: k for k, v in _GLOG_TO_LEVEL.items()}
_FORMAT = "[%(levelname)s] %(name)s(%(process)d,%(threadName)s):%(asctime)s " \
          "[%(filename)s:%(lineno)d] %(message)s"

_logger = _logging.getLogger("mindspore")
if not _logger.handlers:
    _handler = _logging.StreamHandler(_sys.stderr)
    _handler.setFormatter(_logging.Formatter(_FORMAT))
    _logger.addHandler(_handler)
    _logger.propagate = False
    _logger.setLevel(_GLOG_TO_LEVEL.get(_os.environ.get("GLOG_v", "2"), _logging.WARNING))


def debug(msg, *args, **kwargs):
    """Log msg at DEBUG (shown when GLOG_v=0)."""
    _logger.debug(msg, *args, stacklevel=2, **kwargs)


def info(msg, *args, **kwargs):
    """Log msg at INFO (shown when GLOG_v<=1)."""
    _logger.info(msg, *args, stacklevel=2, **kwargs)


def warning(msg, *args, **kwargs):
    """Log msg at WARNING (shown by default)."""
    _logger.warning(msg, *args, stacklevel=2, **kwargs)


def error(msg, *args, **kwargs):
    """Log msg at ERROR."""
    _logger.error(msg, *args, stacklevel=2, **kwargs)


def critical(msg, *args, **kwargs):
    """Log msg at CRITICAL."""
    _logger.critical(msg, *args, stacklevel=2, **kwargs)


def exception(msg, *args, **kwargs):
    """Log msg at ERROR with the current exception's traceback."""
    _logger.exception(msg, *args, stacklevel=2, **kwargs)


def get_level():
    """The current level as MindSpore's GLOG_v string: '0' debug ... '4' critical."""
    return _LEVEL_TO_GLOG.get(_logger.getEffectiveLevel(), "2")


def get_log_config():
    """The logger's settings as MindSpore names them."""
    return {"GLOG_v": get_level(), "logger_name": _logger.name}
