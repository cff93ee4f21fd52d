"""The command line: `graphjit` (or `python -m graphjit`) with the sub-commands
inspect, export, run, draw and bench, one module each. It sits on top of every
layer; nothing in graphjit imports it.

    graphjit inspect net.py:Net --input 'float32[None,4]' --input 'int64[]'
    graphjit export net.py:Net --input 'float32[None,4]' -o net.gjm
    graphjit run net.gjm --input x.npy -o outputs/
    graphjit draw net.py:Net --input 'float32[None,4]' -o net.svg
    graphjit bench net.py:Net --input 'float32[64,4]' --requests 4
"""
from .main import main

__all__ = ["main"]
