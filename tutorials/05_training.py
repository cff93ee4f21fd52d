"""Training in graph mode: Parameters are state, optimizers update them in place, and a
training step (forward, gradients, update) of a model with a data-dependent loop is
one compiled graph that gives the same losses as PYNATIVE mode.

A compiled graph never holds a Parameter's value: each Parameter is a `ref` input,
bound to the Parameter when the graph runs; reads are `Load`s and updates (`ops.assign`,
`self.p = v`, the optimizer ops) are state ops. Every one of them takes the state
token and gives the next, so their order is data flow that no pass can change, and
an `If` or `Loop` whose body updates state carries the token too.
"""
import numpy as np

import graphjit as ms
from graphjit import nn, ops


def banner(text):
    print(f"\n=== {text} " + "=" * max(0, 70 - len(text)))


# -- 1. Parameters are state ----------------------------------------------------------------------
class RunningMean(nn.Cell):
    """Keeps the running mean of its inputs in Parameters (as BatchNorm keeps its moving
    statistics): `self.p = v` in construct updates the Parameter."""

    def __init__(self):
        super().__init__()
        self.mean = ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="mean")
        self.count = ms.Parameter(ms.Tensor(np.array(0.0, np.float32)), name="count")

    def construct(self, x):
        self.count += 1
        self.mean = self.mean + (x - self.mean) / self.count
        return self.mean * 1


banner("1. Parameters are state: read and updated when the graph runs")
ms.set_context(mode=ms.GRAPH_MODE)
rm = RunningMean()
for k in range(1, 4):
    out = rm(ms.Tensor(np.full(3, float(k), np.float32)))
print("running mean after 1, 2, 3:", out, "- compiled", len(rm.compile_cache()), "time(s)")
print(rm.compile_cache()[0].graph)


# -- 2. optimizer ops with resource inputs ---------------------------------------------------------
class AdagradSteps(nn.Cell):
    """The seed's ResourceApplyAdagrad, once per row of grads, in a Loop."""

    def __init__(self):
        super().__init__()
        self.var = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="var")
        self.accum = ms.Parameter(ms.Tensor(np.full(2, 0.1, np.float32)), name="accum")
        self.opt = ops.ApplyAdagrad(use_locking=True)

    def construct(self, grads):
        for g in grads:
            self.opt(self.var, self.accum, 0.1, g)
        return self.var * 1


banner("2. ApplyAdagrad (var and accum are resource inputs) inside a Loop")
grads = np.array([[0.5, -1.0], [0.2, 0.3], [1.0, 1.0]], np.float32)
steps = AdagradSteps()
got = steps(ms.Tensor(grads)).asnumpy()
var, accum = np.ones(2, np.float32), np.full(2, 0.1, np.float32)
for g in grads:
    accum = accum + g * g
    var = var - np.float32(0.1) * g / np.sqrt(accum)
print("graph:", got, " numpy:", var)
loop = next(n for n in steps.compile_cache()[0].graph.nodes if n.op == "Loop")
print("the Loop body:", [n.op for n in loop.attrs["body"].nodes])


# -- 3. training a recurrent model that stops early per batch ---------------------------------------
class EarlyStopRNN(nn.Cell):
    """Reads a sequence xs (T, N, 1) step by step and stops as soon as its hidden state
    saturates: how many steps run depends on the data."""

    def __init__(self, n_hidden=16):
        super().__init__()
        self.w_ih = nn.Dense(1, n_hidden)
        self.w_hh = nn.Dense(n_hidden, n_hidden, has_bias=False)
        self.head = nn.Dense(n_hidden, 1)
        self.n_hidden = n_hidden

    def construct(self, xs):
        h = ops.zeros((xs.shape[1], self.n_hidden), ms.float32)
        for x in xs:
            h = ops.tanh(self.w_ih(x) + self.w_hh(h))
            if ops.abs(h).mean() > 0.95:
                break
        return self.head(h)


def dataset(n_batches=8, seed=0):
    """Sequences of 6 steps; the target is the mean of the first three."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_batches):
        xs = rng.uniform(-1, 1, (6, 16, 1)).astype(np.float32)
        out.append((xs, xs[:3].mean(0)))
    return out


def train_steps(mode, n_steps):
    ms.set_context(mode=mode)
    ms.set_seed(0)
    net = EarlyStopRNN()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.Adam(net.trainable_params(), 0.01))
    step.set_train()
    return [float(step(ms.Tensor(x), ms.Tensor(y)).asnumpy())
            for x, y in dataset()[:n_steps]]


banner("3. the same training steps in GRAPH_MODE and PYNATIVE_MODE")
graph_losses = train_steps(ms.GRAPH_MODE, 4)
eager_losses = train_steps(ms.PYNATIVE_MODE, 4)
for k, (g, e) in enumerate(zip(graph_losses, eager_losses)):
    print(f"step {k}: graph {g:.6f}  pynative {e:.6f}")
assert np.allclose(graph_losses, eager_losses, rtol=1e-5)

banner("4. Model.train: the loss goes down")
ms.set_context(mode=ms.GRAPH_MODE)
ms.set_seed(0)
net = EarlyStopRNN()
model = ms.Model(net, nn.MSELoss(), nn.Adam(net.trainable_params(), 0.01),
                 metrics={"loss", "mae"})
data = dataset()
model.train(10, data)
print("eval:", {k: round(v, 4) for k, v in model.eval(dataset(4, seed=1)).items()})
print("compiled training steps:", len(model.train_network.compile_cache()))
