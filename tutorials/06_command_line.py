"""Tutorial 6: the command line. Inspect, export, run and draw a model without
writing a script.

The model is tutorials/models/loop_model.py: a Cell whose construct runs a recurrent
step over the rows of `x` (a Loop that slices x and stacks its outputs), then shrinks
the result until it is small (a Loop whose trip count depends on the data, with an
If inside). After `pip install -e .` the commands are

    graphjit inspect loop_model.py:Shrink --input 'float32[None,4]'
    graphjit export  loop_model.py:Shrink --input 'float32[None,4]' -o shrink.gjm
    graphjit run     shrink.gjm --input x.npy [-o outputs]
    graphjit draw    shrink.gjm -o shrink.svg
    graphjit bench   loop_model.py:Shrink --input 'float32[64,4]' --requests 4

(`python -m graphjit ...` is the same). This script copies the model into a
temporary folder and runs each command there, through the function behind the
`graphjit` script, printing what you would see in a terminal.
"""
import contextlib
import os
import pathlib
import shlex
import shutil
import sys
import tempfile

import numpy as np

import graphjit as ms
from graphjit.cli import main

MODEL = pathlib.Path(__file__).resolve().parent / "models" / "loop_model.py"


def graphjit(command: str) -> int:
    """Run `graphjit COMMAND` as the console script would, showing it first."""
    print(f"\n$ graphjit {command}")
    sys.stdout.flush()
    code = main(shlex.split(command))
    if code:
        print(f"(exit code {code})")
    return code


def tutorial() -> None:
    work = tempfile.mkdtemp(prefix="graphjit-tutorial-")
    here = os.getcwd()
    os.chdir(work)
    try:
        shutil.copy(MODEL, "loop_model.py")

        # 1. inspect: the explain report (what each for/while/if became and why), the
        # node counts through the graph passes, the IR after them, the lowered program
        # (which nodes run fused into one kernel, which run as extern kernels, where
        # each buffer is freed), compile time, and time per call in graph and eager mode
        # on random inputs of the specs (an unknown dim gets --dim rows, 4 by default;
        # integers are drawn from 0 to 2, both included: --int-range LOW,HIGH sets the
        # range for every input, 'int32[None,20]@0..9' for one).
        graphjit("inspect loop_model.py:Shrink --input 'float32[None,4]' --seconds 0.05")

        # 2. export: compile for the specs and write one file with the graph and its
        # weights (no pickle). The None dim stays unknown: any number of rows runs.
        graphjit("export loop_model.py:Shrink --input 'float32[None,4]' -o shrink.gjm")

        # 3. run: inputs from .npy files; small outputs are printed, -o saves them all.
        x = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
        np.save("x.npy", x)
        graphjit("run shrink.gjm --input x.npy")
        graphjit("run shrink.gjm --input x.npy -o outputs")

        # The saved outputs are what the Cell gives in eager mode, bit for bit.
        ms.set_context(mode=ms.PYNATIVE_MODE)
        sys.path.insert(0, work)
        try:
            import loop_model
            out, steps = loop_model.Shrink()(ms.Tensor(x))
        finally:
            sys.path.remove(work)
            ms.set_context(mode=ms.GRAPH_MODE)
        saved = np.load(os.path.join("outputs", "output0.npy"))
        assert np.array_equal(saved, out.asnumpy()), "graph and eager mode differ"
        assert int(np.load(os.path.join("outputs", "output1.npy"))) == int(steps)
        print(f"\noutputs/output0.npy equals the eager result; the while loop ran "
              f"{int(steps)} times for this x")

        # 4. draw: the Loop bodies and the If branches are clusters; the edges into a
        # body carry the Loop's port map (`slice axis=0` for x's rows, `initial` and
        # `back edge` for carried values, `concat axis=0` for the stacked hs, `last`
        # for the final out); fused kernels of several nodes are outlined in blue.
        # .dot needs no Graphviz; .svg or .png are rendered by Graphviz's `dot` (when it
        # is missing, graphjit writes the .dot file instead and says so).
        graphjit("draw shrink.gjm -o shrink.dot")
        text = pathlib.Path("shrink.dot").read_text()
        print(f"shrink.dot: {text.count('subgraph cluster_loop')} Loop bodies, "
              f"{text.count('subgraph cluster_if') // 2} If with two branches, "
              f"{text.count('subgraph cluster_fused')} fused kernel(s) outlined")
        graphjit("draw loop_model.py:Shrink --input 'float32[None,4]' -o shrink.svg")

        # 5. Mistakes are one line after the usage, with exit code 2; a model that
        # cannot be built shows the error at your line, with exit code 1. (Both go to
        # stderr; this tutorial shows them with its output.)
        pathlib.Path("broken.py").write_text(
            "from graphjit import nn, ops\n\n"
            "class Broken(nn.Cell):\n"
            "    def construct(self, x):\n"
            "        if x.sum() > 0:\n"
            "            y = x\n"
            "        else:\n"
            "            y = ops.concat((x, x))\n"
            "        return y\n")
        with contextlib.redirect_stderr(sys.stdout):
            graphjit("run shrink.gjm --input 'float32[3,x]'")
            graphjit("inspect broken.py:Broken --input 'float32[3]'")
    finally:
        os.chdir(here)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    tutorial()
