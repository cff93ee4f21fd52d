"""`python -m graphjit`: the command line (graphjit.cli)."""
import sys

from .cli import main

sys.exit(main())
