"""graphjit.log plays mindspore.log (`from mindspore import log as logger`): messages
go to the logger named "mindspore" at MindSpore's levels, with the caller's file and line;
get_level() is the GLOG_v string."""
from __future__ import annotations

import logging

import graphjit as ms
from graphjit import log as logger


class _Collect(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.records = []

    def emit(self, record):
        self.records.append(record)


def test_levels_and_records():
    target = logging.getLogger("mindspore")
    handler, old = _Collect(), target.level
    target.addHandler(handler)
    try:
        target.setLevel(logging.WARNING)               # MindSpore's default (GLOG_v=2)
        assert logger.get_level() == "2"
        logger.debug("hidden %d", 1)
        logger.info("hidden")
        logger.warning("shown %s", "w")
        logger.error("shown e")
        logger.critical("shown c")
        assert [(r.levelname, r.getMessage()) for r in handler.records] == [
            ("WARNING", "shown w"), ("ERROR", "shown e"), ("CRITICAL", "shown c")]
        assert handler.records[0].filename == "test_log.py"     # the caller's line
        target.setLevel(logging.DEBUG)
        assert logger.get_level() == "0"
        logger.debug("now shown")
        assert handler.records[-1].getMessage() == "now shown"
        assert logger.get_log_config()["GLOG_v"] == "0"
    finally:
        target.removeHandler(handler)
        target.setLevel(old)
    assert ms.log is logger
