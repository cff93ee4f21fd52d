"""MindSpore's nn module spellings (mindspore.nn.layer, mindspore.nn.loss.loss,
mindspore.nn.optim.optimizer, mindspore.nn.cell, ...): graphjit.nn finds its submodules
here (its __path__), each re-exporting graphjit.nn."""
